package io.distlock.jdbc;

import java.time.Duration;
import java.util.Objects;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import io.distlock.core.InvalidRegistryOptionException;
import io.distlock.core.LockConfigurationException;
import io.distlock.core.LockListener;
import io.distlock.core.WaitStrategy;
import io.distlock.engine.KeyLimit;
import io.distlock.engine.RegistrySettings;
import io.distlock.engine.LocalHandoffLimits;
import io.distlock.engine.WatchdogTiming;

/**
 * Builds a {@link PostgresLockRegistry}. Every option has a safe default, and each is checked
 * once, by {@link #build()}, which throws an {@link InvalidRegistryOptionException} naming the
 * option (the auto-configuration maps it to its {@code distlock.*} property). The build also
 * checks the lease table, creating it first if asked to.
 */
public final class PostgresLockRegistryBuilder {

	/** The default bound of one statement, when no caller's deadline is shorter. */
	public static final Duration DEFAULT_STATEMENT_TIMEOUT = Duration.ofSeconds(5);

	/** The default number of statements a registry runs at once. */
	public static final int DEFAULT_STATEMENT_THREADS = 8;

	private final DataSource dataSource;

	private @Nullable DataSource listenDataSource;

	private String tableName = LockTableSchema.DEFAULT_TABLE_NAME;

	private boolean initializeSchema;

	private Duration leaseTime = RegistrySettings.DEFAULT_LEASE_TIME;

	private @Nullable Duration renewalInterval;

	private WaitStrategy waitStrategy = WaitStrategy.PUB_SUB;

	private @Nullable Duration retryInterval;

	private LockListener listener = LockListener.NONE;

	private @Nullable String instanceId;

	private int maxLocalHandoffs = RegistrySettings.DEFAULT_MAX_LOCAL_HANDOFFS;

	private Duration maxLocalHandoffTime = RegistrySettings.DEFAULT_MAX_LOCAL_HANDOFF_TIME;

	private Duration maxLeaseTime = RegistrySettings.DEFAULT_MAX_LEASE_TIME;

	private int maxKeyBytes = KeyLimit.DEFAULT_MAX_BYTES;

	private KeyLimit.Overflow longKeys = KeyLimit.Overflow.REFUSE;

	private int statementThreads = DEFAULT_STATEMENT_THREADS;

	private Duration statementTimeout = DEFAULT_STATEMENT_TIMEOUT;

	PostgresLockRegistryBuilder(DataSource dataSource) {
		this.dataSource = TransactionFreeDataSources.of(Objects.requireNonNull(dataSource, "dataSource must not be null"));
	}

	/**
	 * Set the lease table's name, optionally after its schema.
	 * @param tableName the table name, default {@value LockTableSchema#DEFAULT_TABLE_NAME}
	 * @return this builder
	 */
	public PostgresLockRegistryBuilder tableName(String tableName) {
		this.tableName = tableName;
		return this;
	}

	/**
	 * Set whether the build creates the lease table if it does not exist, with
	 * {@value LockTableSchema#SCRIPT_LOCATION}.
	 * @param initializeSchema whether to create the table, default {@code false}
	 * @return this builder
	 */
	public PostgresLockRegistryBuilder initializeSchema(boolean initializeSchema) {
		this.initializeSchema = initializeSchema;
		return this;
	}

	/**
	 * Set the database of the one {@code LISTEN} connection, when the lock statements go through
	 * a pooler in transaction mode (pgbouncer), where {@code LISTEN} does not work: a direct
	 * connection for it. It holds one connection for as long as the registry is open.
	 * @param listenDataSource the database to listen on, default the registry's own
	 * @return this builder
	 */
	public PostgresLockRegistryBuilder listenDataSource(DataSource listenDataSource) {
		this.listenDataSource = listenDataSource;
		return this;
	}

	/**
	 * Set the lease of a grant without a fixed lease time; the watchdog renews it while it is
	 * held, so it matters only when the holder dies or is cut off.
	 * @param leaseTime the lease, default 30 s
	 * @return this builder
	 */
	public PostgresLockRegistryBuilder leaseTime(Duration leaseTime) {
		this.leaseTime = leaseTime;
		return this;
	}

	/**
	 * Set how often the watchdog renews a held grant; at most half the lease.
	 * @param renewalInterval the interval, default a third of the lease
	 * @return this builder
	 */
	public PostgresLockRegistryBuilder renewalInterval(Duration renewalInterval) {
		this.renewalInterval = renewalInterval;
		return this;
	}

	/**
	 * Set how a waiter learns that a lock was released: {@link WaitStrategy#PUB_SUB} listens for
	 * the {@code NOTIFY} of a release, {@link WaitStrategy#POLLING} only retries.
	 * @param waitStrategy the strategy, default {@link WaitStrategy#PUB_SUB}
	 * @return this builder
	 */
	public PostgresLockRegistryBuilder waitStrategy(WaitStrategy waitStrategy) {
		this.waitStrategy = waitStrategy;
		return this;
	}

	/**
	 * Set the longest pause between two attempts of a waiter (jittered, and never longer than
	 * the holder's remaining lease); also how long the listener waits before it reconnects.
	 * @param retryInterval the interval, default 1 s when listening and 100 ms when polling
	 * @return this builder
	 */
	public PostgresLockRegistryBuilder retryInterval(Duration retryInterval) {
		this.retryInterval = retryInterval;
		return this;
	}

	/**
	 * Set the listener told about every grant (metrics, events).
	 * @param listener the listener, default none
	 * @return this builder
	 */
	public PostgresLockRegistryBuilder listener(LockListener listener) {
		this.listener = Objects.requireNonNull(listener, "listener must not be null");
		return this;
	}

	/**
	 * Set the id that starts every owner value the registry writes, to tell in the table which
	 * instance holds a lock.
	 * @param instanceId the id, default the process id and a random part
	 * @return this builder
	 */
	public PostgresLockRegistryBuilder instanceId(String instanceId) {
		this.instanceId = instanceId;
		return this;
	}

	/**
	 * Set how far a contended lock may pass between threads of this process without a database
	 * round trip: at most {@code maxHandoffs} times in a row, and only until {@code maxTime} after
	 * the database granted it. Each handoff gives the next holder a larger fencing token.
	 * @param maxHandoffs how many handoffs in a row, 0 to turn local handoff off; default 64
	 * @param maxTime how long after the grant a lock may still be handed over, default 50 ms
	 * @return this builder
	 */
	public PostgresLockRegistryBuilder localHandoff(int maxHandoffs, Duration maxTime) {
		this.maxLocalHandoffs = maxHandoffs;
		this.maxLocalHandoffTime = maxTime;
		return this;
	}

	/**
	 * Set the longest lease the registry grants: a fixed lease, an extension or a hold-at-least
	 * beyond it is refused before anything reaches the database.
	 * @param maxLeaseTime the longest lease, at least the lease time; default 24 hours
	 * @return this builder
	 */
	public PostgresLockRegistryBuilder maxLeaseTime(Duration maxLeaseTime) {
		this.maxLeaseTime = maxLeaseTime;
		return this;
	}

	/**
	 * Set the longest lock key, in UTF-8 bytes; a longer key is refused unless
	 * {@link #hashLongKeys(boolean)}.
	 * @param maxKeyBytes the longest key, between 256 and {@value PostgresLockStore#MAX_KEY_BYTES};
	 * default 512
	 * @return this builder
	 */
	public PostgresLockRegistryBuilder maxKeyBytes(int maxKeyBytes) {
		this.maxKeyBytes = maxKeyBytes;
		return this;
	}

	/**
	 * Set whether a key longer than {@link #maxKeyBytes(int)} is locked as its start and its
	 * SHA-256 digest instead of being refused.
	 * @param hashLongKeys whether to digest long keys; default {@code false}
	 * @return this builder
	 */
	public PostgresLockRegistryBuilder hashLongKeys(boolean hashLongKeys) {
		this.longKeys = hashLongKeys ? KeyLimit.Overflow.HASH : KeyLimit.Overflow.REFUSE;
		return this;
	}

	/**
	 * Set how many statements the registry runs at once, each on a connection of its own: at
	 * most the pool's size is useful.
	 * @param statementThreads the number, at least 1; default {@value #DEFAULT_STATEMENT_THREADS}
	 * @return this builder
	 */
	public PostgresLockRegistryBuilder statementThreads(int statementThreads) {
		this.statementThreads = statementThreads;
		return this;
	}

	/**
	 * Set the longest a statement may run when its caller's deadline is later (a long wait): a
	 * statement of a waiter is bounded by what is left of its wait time, a renewal by the lease.
	 * @param statementTimeout the bound, at least a second; default 5 s
	 * @return this builder
	 */
	public PostgresLockRegistryBuilder statementTimeout(Duration statementTimeout) {
		this.statementTimeout = statementTimeout;
		return this;
	}

	/**
	 * Check every option, create the table if asked to, check the table, and build the registry.
	 * @return the registry
	 * @throws InvalidRegistryOptionException naming the option that is invalid
	 * @throws LockConfigurationException naming the table or column that is missing, or the
	 * database if it is not PostgreSQL
	 */
	public PostgresLockRegistry build() {
		RegistrySettings settings = settings();
		StatementOptions options = new StatementOptions(this.statementThreads, this.statementTimeout);
		LockTableStatements statements = statements();
		if (this.initializeSchema) {
			LockTableSchema.initialize(this.dataSource, statements.table());
		}
		LockTableSchema.validate(this.dataSource, statements);
		return new PostgresLockRegistry(this, settings, statements, options);
	}

	DataSource dataSource() {
		return this.dataSource;
	}

	DataSource listenDataSource() {
		return (this.listenDataSource != null) ? TransactionFreeDataSources.of(this.listenDataSource) : this.dataSource;
	}

	private LockTableStatements statements() {
		try {
			return new LockTableStatements(this.tableName);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidRegistryOptionException("tableName", this.tableName, ex.getMessage());
		}
	}

	private RegistrySettings settings() {
		WatchdogTiming timing = WatchdogTiming.of(this.leaseTime, this.renewalInterval);
		LocalHandoffLimits handoff = new LocalHandoffLimits(this.maxLocalHandoffs, this.maxLocalHandoffTime);
		if (this.waitStrategy == null) {
			throw new InvalidRegistryOptionException("waitStrategy", null, "waitStrategy must not be null");
		}
		Duration retry = (this.retryInterval != null) ? this.retryInterval
				: RegistrySettings.defaultRetryInterval(this.waitStrategy);
		if (retry.isNegative() || retry.isZero()) {
			throw new InvalidRegistryOptionException("retryInterval", retry,
					"retryInterval must be positive but was '" + retry + "'");
		}
		if (this.maxKeyBytes > PostgresLockStore.MAX_KEY_BYTES) {
			throw new InvalidRegistryOptionException("maxKeyBytes", this.maxKeyBytes, "maxKeyBytes must be at most "
					+ PostgresLockStore.MAX_KEY_BYTES + " on PostgreSQL but was '" + this.maxKeyBytes + "'");
		}
		String id = (this.instanceId != null) ? this.instanceId : RegistrySettings.newInstanceId();
		return new RegistrySettings(this.leaseTime, timing.renewalInterval(), this.waitStrategy, retry, this.listener,
				id, RegistrySettings.DEFAULT_DRIFT_FACTOR, Duration.ZERO, handoff.maxHandoffs(), handoff.maxTime(),
				this.maxLeaseTime, new KeyLimit(this.maxKeyBytes, this.longKeys));
	}

}

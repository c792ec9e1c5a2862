package io.distlock.jdbc;

import java.util.EnumSet;
import java.util.Set;

import javax.sql.DataSource;

import io.distlock.core.DistLock;
import io.distlock.core.DistReadWriteLock;
import io.distlock.core.LockConfigurationException;
import io.distlock.core.LockFeature;
import io.distlock.engine.AbstractLockRegistry;
import io.distlock.engine.RegistrySettings;

/**
 * A {@link io.distlock.core.LockRegistry} on PostgreSQL, for applications that have a relational
 * database and no Redis. Named after its database, not after JDBC: its SQL is PostgreSQL's
 * ({@code INSERT ... ON CONFLICT}, {@code clock_timestamp()}, {@code LISTEN/NOTIFY}), and Spring
 * Integration's {@code JdbcLockRegistry} has the generic name already, so an application that
 * has both never confuses them.
 * <p>
 * A grant is a row of the lease table {@value LockTableSchema#DEFAULT_TABLE_NAME} (key, owner,
 * fencing token, expiry) written by one autocommit statement on a connection of its own, never
 * inside the caller's transaction: the lock is visible to every other session before the
 * caller's transaction commits, and a rollback of that transaction does not take it back. Every
 * expiry is computed from the database's clock ({@code clock_timestamp()}), never from the JVM's.
 * Every grant raises the key's fencing token, kept in the row after a release, so tokens grow
 * across releases, expiry and restarts. The watchdog renews held grants and signals a loss, as on
 * Redis; reentrancy and local handoff come from the engine. A release that someone waits for
 * sends a {@code NOTIFY} in the same statement, which one {@code LISTEN} connection per registry
 * hears; waiters also retry after the holder's remaining lease or their retry interval.
 * <p>
 * Exclusive locks and multi-locks only: fair and read/write locks are refused at startup
 * ({@link #supportedFeatures()}).
 *
 * <pre class="code">
 * PostgresLockRegistry registry = PostgresLockRegistry.builder(dataSource).build();
 * try (LockLease lease = registry.acquire("stock:42", Duration.ofSeconds(2))) {
 *     reserve(42, lease.fencingToken());
 * }
 * </pre>
 */
public class PostgresLockRegistry extends AbstractLockRegistry {

	private final String tableName;

	/**
	 * Create the registry of a builder, whose options and table were checked already.
	 */
	PostgresLockRegistry(PostgresLockRegistryBuilder builder, RegistrySettings settings,
			LockTableStatements statements, StatementOptions options) {
		super(new PostgresLockStore(statements,
				new StatementThreads(builder.dataSource(), options.threads(), settings.instanceId()),
				new ReleaseListener(builder.listenDataSource(), statements.channel(), settings.retryInterval(),
						settings.instanceId()),
				options.timeout()), settings);
		this.tableName = statements.table();
	}

	/**
	 * Create a registry with the default options on the table {@value LockTableSchema#DEFAULT_TABLE_NAME},
	 * which must exist.
	 * @param dataSource the PostgreSQL database
	 * @return the registry
	 */
	public static PostgresLockRegistry create(DataSource dataSource) {
		return builder(dataSource).build();
	}

	/**
	 * Start building a registry with options.
	 * @param dataSource the PostgreSQL database
	 * @return a builder with the default options
	 */
	public static PostgresLockRegistryBuilder builder(DataSource dataSource) {
		return new PostgresLockRegistryBuilder(dataSource);
	}

	/**
	 * Return the lease table's name.
	 * @return the table name
	 */
	public String getTableName() {
		return this.tableName;
	}

	/**
	 * Return no feature: the lease table holds exclusive grants only, so that a
	 * {@code @DistributedLock(fair = true)} fails at startup.
	 * @return an empty set
	 */
	@Override
	public Set<LockFeature> supportedFeatures() {
		return EnumSet.noneOf(LockFeature.class);
	}

	/**
	 * Not supported on PostgreSQL (see {@link #supportedFeatures()}).
	 * @throws LockConfigurationException always
	 */
	@Override
	public DistLock obtainFair(String key) {
		throw new LockConfigurationException(
				"PostgresLockRegistry does not offer fair locks; use obtain(key), or RedisLockRegistry");
	}

	/**
	 * Not supported on PostgreSQL (see {@link #supportedFeatures()}).
	 * @throws LockConfigurationException always
	 */
	@Override
	public DistReadWriteLock obtainReadWrite(String key) {
		throw new LockConfigurationException(
				"PostgresLockRegistry does not offer read/write locks; use obtain(key), or RedisLockRegistry");
	}

}

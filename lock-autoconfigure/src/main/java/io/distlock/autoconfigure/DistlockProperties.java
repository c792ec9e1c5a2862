package io.distlock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.core.Ordered;

import io.distlock.core.WaitStrategy;
import io.distlock.redis.AbstractRedisRegistryBuilder;
import io.distlock.redlock.RedlockRegistry;

/**
 * Configuration properties for distributed locks ({@code distlock.*}). Unknown properties under
 * {@code distlock} are rejected, and invalid combinations fail at startup naming the property:
 * checked here, or, for the rules a registry builder checks (the renewal interval and the lease,
 * the local handoff limits, the Redlock timing and nodes), by the builder, whose error
 * failure analyzer maps to the property.
 */
@ConfigurationProperties(prefix = "distlock", ignoreUnknownFields = false)
public class DistlockProperties implements InitializingBean {

	/** The default order of the lock advice: just before Spring's transaction advice. */
	public static final int DEFAULT_ASPECT_ORDER = Ordered.LOWEST_PRECEDENCE - 1000;

	/**
	 * Whether to enable distributed locking.
	 */
	private boolean enabled = true;

	/**
	 * Where the locks live: redis (the application's Redis, or Redlock nodes) or jdbc (a lease
	 * table in the application's PostgreSQL DataSource, with distlock-jdbc). Defaults to redis,
	 * or to jdbc when the application has a DataSource and no Redis connection factory.
	 */
	private Store store;

	/**
	 * Prefix of every Redis key the locks write. Must not contain '{' or '}'.
	 */
	private String keyPrefix = "distlock:";

	/**
	 * How long an annotated method waits for its lock when the annotation sets no waitTime.
	 */
	private Duration waitTime = Duration.ofSeconds(5);

	/**
	 * Lease of a lock without a fixed lease time. The watchdog renews it while the lock is held,
	 * so it matters only when the holder dies or is cut off from Redis. At least 30ms, or 10ms
	 * with a renewal interval of its own.
	 */
	private Duration leaseTime = AbstractRedisRegistryBuilder.DEFAULT_LEASE_TIME;

	/**
	 * How often the watchdog renews a held lock, at most half the lease time. Defaults to a
	 * third of the lease time.
	 */
	private Duration renewalInterval;

	/**
	 * How a waiter learns that a lock was released.
	 */
	private WaitStrategy waitStrategy = WaitStrategy.PUB_SUB;

	/**
	 * Longest pause between two attempts of a waiter, jittered and never longer than the
	 * holder's remaining lease. Defaults to 1s with pub-sub and 100ms when polling.
	 */
	private Duration retryInterval;

	/**
	 * How long the last fencing token of a key is kept after a grant.
	 */
	private Duration fenceRetentionTime = Duration.ofMinutes(10);

	/**
	 * Longest lease, extension or hold-at-least a lock may have: a holder that dies keeps the
	 * lock that long. A longer fixed leaseTime or holdAtLeast on @DistributedLock fails at
	 * startup, a longer one asked for in code with IllegalArgumentException. At least
	 * distlock.lease-time and at most 365 days.
	 */
	private Duration maxLeaseTime = AbstractRedisRegistryBuilder.DEFAULT_MAX_LEASE_TIME;

	/**
	 * Longest lock key in UTF-8 bytes, between 256 and 1048576: a longer key fails the call with
	 * LockKeyException before anything reaches Redis, unless hash-long-keys is set.
	 */
	private int maxKeyBytes = AbstractRedisRegistryBuilder.DEFAULT_MAX_KEY_BYTES;

	/**
	 * Whether a key longer than max-key-bytes is locked as its start and its SHA-256 digest
	 * instead of being refused. Equal keys give equal locks; leases, events and /actuator/locks
	 * show the digest form.
	 */
	private boolean hashLongKeys;

	/**
	 * Order of the lock advice. Must be lower than the transaction advice's order, so that a
	 * lock is taken before a transaction begins and released after it ends.
	 */
	private int aspectOrder = DEFAULT_ASPECT_ORDER;

	private final Metrics metrics = new Metrics();

	private final Redlock redlock = new Redlock();

	private final ReplicaAcknowledgement replicaAcknowledgement = new ReplicaAcknowledgement();

	private final LocalHandoff localHandoff = new LocalHandoff();

	private final LossDetection lossDetection = new LossDetection();

	private final Fencing fencing = new Fencing();

	private final Jdbc jdbc = new Jdbc();
	private final Leader leader = new Leader();

	/**
	 * Whether startup fails when the store that holds the locks does not answer (checked once,
	 * within about a second, once every bean is created). Off by default: the application starts
	 * with a warning that names the address it tried, the distlock health component reports
	 * DOWN, and lock calls fail with LockAcquisitionException until the store answers.
	 */
	private boolean failFast;

	/**
	 * What to do at startup when the Redis that holds the locks (with Redlock: any of its nodes)
	 * may evict keys under memory pressure (a maxmemory with a policy other than noeviction):
	 * warn, strict (refuse to start, also when the policy cannot be read) or off.
	 */
	private StoreCheck evictionCheck = StoreCheck.WARN;

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public String getKeyPrefix() {
		return this.keyPrefix;
	}

	public void setKeyPrefix(String keyPrefix) {
		this.keyPrefix = keyPrefix;
	}

	public Duration getWaitTime() {
		return this.waitTime;
	}

	public void setWaitTime(Duration waitTime) {
		this.waitTime = waitTime;
	}

	public Duration getLeaseTime() {
		return this.leaseTime;
	}

	public void setLeaseTime(Duration leaseTime) {
		this.leaseTime = leaseTime;
	}

	public Duration getRenewalInterval() {
		return this.renewalInterval;
	}

	public void setRenewalInterval(Duration renewalInterval) {
		this.renewalInterval = renewalInterval;
	}

	public WaitStrategy getWaitStrategy() {
		return this.waitStrategy;
	}

	public void setWaitStrategy(WaitStrategy waitStrategy) {
		this.waitStrategy = waitStrategy;
	}

	public Duration getRetryInterval() {
		return this.retryInterval;
	}

	public void setRetryInterval(Duration retryInterval) {
		this.retryInterval = retryInterval;
	}

	public int getMaxKeyBytes() {
		return this.maxKeyBytes;
	}

	public void setMaxKeyBytes(int maxKeyBytes) {
		this.maxKeyBytes = maxKeyBytes;
	}

	public boolean isHashLongKeys() {
		return this.hashLongKeys;
	}

	public void setHashLongKeys(boolean hashLongKeys) {
		this.hashLongKeys = hashLongKeys;
	}

	public Duration getMaxLeaseTime() {
		return this.maxLeaseTime;
	}

	public void setMaxLeaseTime(Duration maxLeaseTime) {
		this.maxLeaseTime = maxLeaseTime;
	}

	public Duration getFenceRetentionTime() {
		return this.fenceRetentionTime;
	}

	public void setFenceRetentionTime(Duration fenceRetentionTime) {
		this.fenceRetentionTime = fenceRetentionTime;
	}

	public int getAspectOrder() {
		return this.aspectOrder;
	}

	public void setAspectOrder(int aspectOrder) {
		this.aspectOrder = aspectOrder;
	}

	public Metrics getMetrics() {
		return this.metrics;
	}

	public Redlock getRedlock() {
		return this.redlock;
	}

	public ReplicaAcknowledgement getReplicaAcknowledgement() {
		return this.replicaAcknowledgement;
	}

	public LocalHandoff getLocalHandoff() {
		return this.localHandoff;
	}

	public LossDetection getLossDetection() {
		return this.lossDetection;
	}

	public Fencing getFencing() {
		return this.fencing;
	}

	public Store getStore() {
		return this.store;
	}

	public void setStore(Store store) {
		this.store = store;
	}

	public Jdbc getJdbc() {
		return this.jdbc;
	}

	public Leader getLeader() {
		return this.leader;
	}

	public boolean isFailFast() {
		return this.failFast;
	}

	public void setFailFast(boolean failFast) {
		this.failFast = failFast;
	}

	public StoreCheck getEvictionCheck() {
		return this.evictionCheck;
	}

	public void setEvictionCheck(StoreCheck evictionCheck) {
		this.evictionCheck = evictionCheck;
	}

	/**
	 * Check what no registry builder checks: the rules of the options a builder takes are the
	 * builder's, and the failure analyzer names the property behind an option it refuses.
	 */
	@Override
	public void afterPropertiesSet() {
		requireNotNegative("distlock.wait-time", this.waitTime);
		if (this.evictionCheck == null) {
			throw new InvalidLockPropertyException("distlock.eviction-check", null, "must be set");
		}
		if (this.waitStrategy == null) {
			throw new InvalidLockPropertyException("distlock.wait-strategy", null, "must be set");
		}
		this.redlock.validate();
		this.leader.validate(this.leaseTime, (this.renewalInterval != null) ? this.renewalInterval
				: AbstractRedisRegistryBuilder.defaultRenewalInterval(this.leaseTime));
		if (this.lossDetection.isKeyspaceEvents() && this.redlock.isEnabled()) {
			throw new InvalidLockPropertyException("distlock.loss-detection.keyspace-events", true,
					"is not supported with Redlock (distlock.redlock.nodes): turn one of them off");
		}
		if (this.redlock.isEnabled() && this.replicaAcknowledgement.getReplicas() > 0) {
			throw new InvalidLockPropertyException("distlock.replica-acknowledgement.replicas",
					this.replicaAcknowledgement.getReplicas(),
					"cannot be combined with distlock.redlock.nodes: Redlock nodes are independent primaries");
		}
	}

	private static void requirePositive(String property, Duration value) {
		if (value == null || value.isNegative() || value.isZero()) {
			throw new InvalidLockPropertyException(property, value, "must be positive");
		}
	}

	private static void requireNotNegative(String property, Duration value) {
		if (value == null || value.isNegative()) {
			throw new InvalidLockPropertyException(property, value, "must not be negative");
		}
	}

	/**
	 * Redlock properties ({@code distlock.redlock.*}): with nodes, locks are held by a quorum of
	 * independent Redis nodes instead of the application's Redis.
	 */
	public static class Redlock {

		/**
		 * Independent Redis nodes for Redlock, as redis://[[user]:password@]host:port[/database].
		 * Empty to lock on the application's Redis (spring.data.redis.*).
		 */
		private List<String> nodes = new ArrayList<>();

		/**
		 * How long one Redlock node may take to answer; the nodes are asked in parallel.
		 */
		private Duration perNodeTimeout = RedlockRegistry.DEFAULT_PER_NODE_TIMEOUT;

		/**
		 * Share of a lease kept back for clock drift between the nodes and this process, in
		 * (0, 0.1].
		 */
		private double driftFactor = RedlockRegistry.DEFAULT_DRIFT_FACTOR;

		/**
		 * Shortest validity a fresh Redlock grant may have; a slower quorum is given back and
		 * retried.
		 */
		private Duration minValidity = Duration.ZERO;

		/**
		 * What to do at startup when a Redlock node may lose grants in a crash: no append-only
		 * file (appendonly no), or one not fsynced on every write (appendfsync other than always):
		 * warn, strict (refuse to start, also when fewer than a quorum of nodes can be read) or
		 * off. Not checked when restart-delay is set.
		 */
		private StoreCheck persistenceCheck = StoreCheck.WARN;

		/**
		 * How long a Redlock node counts towards no quorum after its server started, enforced by
		 * each node's acquire script from its uptime: the delayed restart that makes nodes safe
		 * whatever they restart with (no persistence, an RDB snapshot, an append-only file that
		 * missed its last second). At least distlock.lease-time; it also caps
		 * distlock.max-lease-time. Nodes that all just started wait it once. Needs INFO (ACL
		 * +info, not renamed); a node that refuses it fails startup. Setting it turns off the
		 * persistence check.
		 */
		private Duration restartDelay;

		public boolean isEnabled() {
			return !this.nodes.isEmpty();
		}

		public List<String> getNodes() {
			return this.nodes;
		}

		public void setNodes(List<String> nodes) {
			this.nodes = nodes;
		}

		public Duration getPerNodeTimeout() {
			return this.perNodeTimeout;
		}

		public void setPerNodeTimeout(Duration perNodeTimeout) {
			this.perNodeTimeout = perNodeTimeout;
		}

		public double getDriftFactor() {
			return this.driftFactor;
		}

		public void setDriftFactor(double driftFactor) {
			this.driftFactor = driftFactor;
		}

		public Duration getMinValidity() {
			return this.minValidity;
		}

		public void setMinValidity(Duration minValidity) {
			this.minValidity = minValidity;
		}

		public StoreCheck getPersistenceCheck() {
			return this.persistenceCheck;
		}

		public void setPersistenceCheck(StoreCheck persistenceCheck) {
			this.persistenceCheck = persistenceCheck;
		}

		/**
		 * Return what the startup persistence check does: nothing when the application declares
		 * a delayed restart instead.
		 * @return the check's mode
		 */
		public StoreCheck effectivePersistenceCheck() {
			return (this.restartDelay != null) ? StoreCheck.OFF : this.persistenceCheck;
		}

		public Duration getRestartDelay() {
			return this.restartDelay;
		}

		public void setRestartDelay(Duration restartDelay) {
			this.restartDelay = restartDelay;
		}

		void validate() {
			if (!isEnabled()) {
				return;
			}
			if (this.persistenceCheck == null) {
				throw new InvalidLockPropertyException(RedlockPersistenceCheck.PROPERTY, null, "must be set");
			}
			for (String node : this.nodes) {
				if (node == null || node.isBlank()) {
					throw new InvalidLockPropertyException("distlock.redlock.nodes", this.nodes,
							"must not contain a blank node");
				}
			}
		}

	}

	/**
	 * Replica acknowledgement properties ({@code distlock.replica-acknowledgement.*}).
	 */
	public static class ReplicaAcknowledgement {

		/**
		 * How many replicas must acknowledge a grant (WAIT) before it counts; 0 to not wait.
		 */
		private int replicas;

		/**
		 * How long to wait for the replicas; a grant they do not acknowledge in time is given
		 * back.
		 */
		private Duration timeout = Duration.ofMillis(100);

		public int getReplicas() {
			return this.replicas;
		}

		public void setReplicas(int replicas) {
			this.replicas = replicas;
		}

		public Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(Duration timeout) {
			this.timeout = timeout;
		}

	}

	/**
	 * What a startup check of a setting of the Redis that holds the locks (or of every Redlock
	 * node) does when the setting puts held locks at risk.
	 */
	public enum StoreCheck {

		/** Log a warning naming the store, the setting and what to do. */
		WARN,

		/**
		 * Refuse to start when a store's setting puts locks at risk, or when fewer stores could
		 * be read than the locks need (the one Redis, or a Redlock quorum).
		 */
		STRICT,

		/** Do not check. */
		OFF

	}

	/**
	 * Loss detection properties ({@code distlock.loss-detection.*}): how a holder learns that
	 * its lock was lost besides the watchdog's renewal.
	 */
	public static class LossDetection {

		/**
		 * Whether to learn of a lost lock the moment Redis deletes, expires or evicts its key,
		 * from keyspace notifications, instead of at the next renewal. Needs the server's
		 * notify-keyspace-events to include 'Egxe' (startup fails if it does not). Exclusive and
		 * write locks on a single Redis; not with Redlock or Redis Cluster.
		 */
		private boolean keyspaceEvents;

		public boolean isKeyspaceEvents() {
			return this.keyspaceEvents;
		}

		public void setKeyspaceEvents(boolean keyspaceEvents) {
			this.keyspaceEvents = keyspaceEvents;
		}

	}

	/**
	 * Local handoff properties ({@code distlock.local-handoff.*}): how far a contended lock may
	 * pass between threads of this instance without a Redis round trip before it is released in
	 * Redis for other instances. Every handoff gives the next holder a larger fencing token.
	 * Redlock registries never hand over locally.
	 */
	public static class LocalHandoff {

		/**
		 * How many times in a row a contended lock may pass to another thread of this instance
		 * without a Redis round trip; 0 turns local handoff off. At most 1000. Not used by
		 * Redlock.
		 */
		private int maxHandoffs = AbstractRedisRegistryBuilder.DEFAULT_MAX_LOCAL_HANDOFFS;

		/**
		 * How long after Redis granted it a lock may still be handed to another thread of this
		 * instance.
		 */
		private Duration maxTime = AbstractRedisRegistryBuilder.DEFAULT_MAX_LOCAL_HANDOFF_TIME;

		public int getMaxHandoffs() {
			return this.maxHandoffs;
		}

		public void setMaxHandoffs(int maxHandoffs) {
			this.maxHandoffs = maxHandoffs;
		}

		public Duration getMaxTime() {
			return this.maxTime;
		}

		public void setMaxTime(Duration maxTime) {
			this.maxTime = maxTime;
		}

	}

	/**
	 * Fenced-write properties ({@code distlock.fencing.*}): the fence table of
	 * {@code JdbcFencing}.
	 */
	public static class Fencing {

		/**
		 * When to create the fence table (distlock_fence) at startup: embedded (only in an
		 * embedded database), always, or never (create it with Flyway or Liquibase from
		 * io/distlock/fencing/schema-postgresql.sql, schema-mysql.sql, schema-mariadb.sql or
		 * schema-h2.sql in distlock-core).
		 */
		private SchemaInitialization initializeSchema = SchemaInitialization.EMBEDDED;

		public SchemaInitialization getInitializeSchema() {
			return this.initializeSchema;
		}

		public void setInitializeSchema(SchemaInitialization initializeSchema) {
			this.initializeSchema = initializeSchema;
		}

	}

	/**
	 * Where the locks live.
	 */
	public enum Store {

		/** The application's Redis, or Redlock nodes. */
		REDIS,

		/** A lease table in the application's PostgreSQL database (distlock-jdbc). */
		JDBC

	}

	/**
	 * PostgreSQL lock store properties ({@code distlock.jdbc.*}), used when the locks live in
	 * the database ({@code distlock.store=jdbc}).
	 */
	public static class Jdbc {

		/**
		 * Name of the lease table, optionally after its schema and a dot.
		 */
		private String tableName = "distlock_lock";

		/**
		 * When to create the lease table at startup: embedded (only in an embedded database),
		 * always, or never (create it with Flyway or Liquibase from
		 * META-INF/distlock/jdbc/schema-postgresql.sql in distlock-jdbc).
		 */
		private SchemaInitialization initializeSchema = SchemaInitialization.EMBEDDED;

		public String getTableName() {
			return this.tableName;
		}

		public void setTableName(String tableName) {
			this.tableName = tableName;
		}

		public SchemaInitialization getInitializeSchema() {
			return this.initializeSchema;
		}

		public void setInitializeSchema(SchemaInitialization initializeSchema) {
			this.initializeSchema = initializeSchema;
		}

	}

	/**
	 * When a table distlock needs is created at startup.
	 */
	public enum SchemaInitialization {

		/** Only when the database is an embedded one (H2, HSQLDB, Derby). */
		EMBEDDED,

		/** Always; the script creates the table only if it does not exist. */
		ALWAYS,

		/** Never: the application's migrations create it. */
		NEVER

	}

	/**
	 * Metrics properties ({@code distlock.metrics.*}).
	 */
	public static class Metrics {

		/**
		 * Whether to record distlock.* meters when Micrometer is present.
		 */
		private boolean enabled = true;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

	}

	/**
	 * Leader election properties ({@code distlock.leader.*}): the roles this instance competes
	 * for, each decided by one lock.
	 */
	public static class Leader {

		/**
		 * Roles this instance competes for, by name (distlock.leader.roles.billing.key=...); each
		 * role is decided by one lock.
		 */
		private Map<String, Role> roles = new LinkedHashMap<>();

		/**
		 * How long an instance that does not lead waits for a role's lock at a time, jittered by a
		 * quarter either way; release notifications wake it earlier.
		 */
		private Duration retryInterval = Duration.ofSeconds(1);

		/**
		 * How long a leader goes on without a confirmed renewal of its lock before it steps down by
		 * itself, so that it stops acting before its lease can expire. Shorter than
		 * distlock.lease-time and longer than the renewal interval. Defaults to two thirds of the
		 * lease time.
		 */
		private Duration renewDeadline;

		public Map<String, Role> getRoles() {
			return this.roles;
		}

		public void setRoles(Map<String, Role> roles) {
			this.roles = roles;
		}

		public Duration getRetryInterval() {
			return this.retryInterval;
		}

		public void setRetryInterval(Duration retryInterval) {
			this.retryInterval = retryInterval;
		}

		public Duration getRenewDeadline() {
			return this.renewDeadline;
		}

		public void setRenewDeadline(Duration renewDeadline) {
			this.renewDeadline = renewDeadline;
		}

		void validate(Duration leaseTime, Duration renewalInterval) {
			requirePositive("distlock.leader.retry-interval", this.retryInterval);
			if (this.renewDeadline != null && (this.renewDeadline.compareTo(leaseTime) >= 0
					|| this.renewDeadline.compareTo(renewalInterval) <= 0)) {
				throw new InvalidLockPropertyException("distlock.leader.renew-deadline", this.renewDeadline,
						"must be shorter than distlock.lease-time '" + leaseTime + "', so that a leader steps down "
								+ "before its lease can expire, and longer than the renewal interval '" + renewalInterval
								+ "', so that one renewal has time to be confirmed");
			}
			this.roles.forEach((name, role) -> {
				if (name.isBlank()) {
					throw new InvalidLockPropertyException("distlock.leader.roles", name, "must not name a blank role");
				}
				if (role.getKey() != null && role.getKey().isBlank()) {
					throw new InvalidLockPropertyException("distlock.leader.roles." + name + ".key", role.getKey(),
							"must not be blank");
				}
			});
		}

	}

	/**
	 * One role of leader election ({@code distlock.leader.roles.<name>.*}).
	 */
	public static class Role {

		/**
		 * Whether this instance competes for the role; instances that set false never lead it.
		 */
		private boolean enabled = true;

		/**
		 * Key of the role's lock. Defaults to 'leader:' followed by the role's name.
		 */
		private String key;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public String getKey() {
			return this.key;
		}

		public void setKey(String key) {
			this.key = key;
		}

	}

}

package io.distlock.redlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import io.distlock.core.DistLock;
import io.distlock.core.DistReadWriteLock;
import io.distlock.core.InvalidRegistryOptionException;
import io.distlock.core.LockConfigurationException;
import io.distlock.core.LockFeature;
import io.distlock.engine.AbstractLockRegistry;
import io.distlock.engine.RegistrySettings;
import io.distlock.redis.AbstractRedisRegistryBuilder;
import io.distlock.redis.RedisLockRegistry;

/**
 * A {@link io.distlock.core.LockRegistry} over N independent Redis nodes (Redlock): a lock is
 * held while a quorum ({@code N/2 + 1}) of nodes hold it. Acquisition asks every node in
 * parallel with a per-node timeout; the grant's validity is
 * {@code lease - elapsed - (driftFactor * lease + 2 ms)} and a grant with less than the minimum
 * validity is given back; a failed attempt is given back on every node and retried after a
 * random delay, so that clients do not split votes in lockstep. Renewal needs a quorum and
 * re-creates the key on a node that restarted empty; losing the quorum is signalled as a loss.
 * <p>
 * Redlock tolerates the failure of a minority of nodes, not a clock jump or an unpersisted
 * restart of a node in the quorum (Kleppmann): keep node restarts delayed beyond the lease, and
 * fence the resource. Exclusive locks and multi-locks only.
 */
public class RedlockRegistry extends AbstractLockRegistry {

	/** The default time one node may take to answer. */
	public static final Duration DEFAULT_PER_NODE_TIMEOUT = Duration.ofMillis(100);

	/** The default drift factor: 1% of the lease, as Redlock prescribes. */
	public static final double DEFAULT_DRIFT_FACTOR = RegistrySettings.DEFAULT_DRIFT_FACTOR;

	private final RedlockNodeFactories nodeFactories;

	private RedlockRegistry(RegistrySettings settings, RedlockStore store, RedlockNodeFactories nodeFactories) {
		super(store, settings);
		this.nodeFactories = nodeFactories;
	}

	/**
	 * Start building a registry over the given nodes' connection factories. Give each a command
	 * timeout no longer than the per-node timeout.
	 * @param nodes one connection factory per independent Redis node
	 * @return a builder
	 */
	public static Builder builder(List<? extends RedisConnectionFactory> nodes) {
		return new Builder(new ArrayList<>(nodes), List.of());
	}

	/**
	 * Start building a registry over nodes given as Redis URIs ({@code redis://[:password@]host:port[/db]}).
	 * The registry creates their connections, with the per-node timeout as command timeout, and
	 * closes them when it is closed.
	 * @param uris one URI per independent Redis node
	 * @return a builder
	 */
	public static Builder builderForUris(List<String> uris) {
		return new Builder(new ArrayList<>(), List.copyOf(uris));
	}

	/**
	 * Return the share of a lease a Redlock grant keeps back for clock drift:
	 * {@code lease * driftFactor + 2 ms}.
	 * @param leaseTime the lease
	 * @param driftFactor the drift factor
	 * @return the drift margin
	 */
	public static Duration driftMargin(Duration leaseTime, double driftFactor) {
		return RegistrySettings.driftMargin(leaseTime, driftFactor);
	}

	/**
	 * Return how many nodes the registry uses.
	 * @return the number of nodes
	 */
	public int getNodeCount() {
		return this.nodeFactories.all().size();
	}

	/**
	 * Return the nodes' connection factories, in the order given: for checks of the nodes'
	 * settings, such as the starter's eviction check. The registry uses them; do not stop them.
	 * @return the connection factories
	 */
	public List<RedisConnectionFactory> getNodeConnectionFactories() {
		return List.copyOf(this.nodeFactories.all());
	}

	/**
	 * Return how many nodes must agree.
	 * @return the quorum
	 */
	public int getQuorum() {
		return getNodeCount() / 2 + 1;
	}

	/**
	 * Return no feature: Redlock grants exclusive locks and multi-locks only, so that a
	 * {@code @DistributedLock(fair = true)} fails at startup.
	 * @return an empty set
	 */
	@Override
	public Set<LockFeature> supportedFeatures() {
		return EnumSet.noneOf(LockFeature.class);
	}

	/**
	 * Not supported by Redlock (see {@link #supportedFeatures()}).
	 * @throws LockConfigurationException always
	 */
	@Override
	public DistLock obtainFair(String key) {
		throw new LockConfigurationException("RedlockRegistry does not offer fair locks; use RedisLockRegistry");
	}

	/**
	 * Not supported by Redlock (see {@link #supportedFeatures()}).
	 * @throws LockConfigurationException always
	 */
	@Override
	public DistReadWriteLock obtainReadWrite(String key) {
		throw new LockConfigurationException("RedlockRegistry does not offer read/write locks; use RedisLockRegistry");
	}

	@Override
	public void close() {
		super.close();
		this.nodeFactories.destroyOwned();
	}

	/**
	 * Builds a {@link RedlockRegistry}. Every option has a safe default.
	 */
	public static final class Builder extends AbstractRedisRegistryBuilder<Builder> {

		private final List<RedisConnectionFactory> nodes;

		private final List<String> uris;

		private RedlockNodeFactories nodeFactories;

		private Duration perNodeTimeout = DEFAULT_PER_NODE_TIMEOUT;

		private double driftFactor = RegistrySettings.DEFAULT_DRIFT_FACTOR;

		private Duration minValidity = Duration.ZERO;

		private Duration restartDelay;

		private Builder(List<RedisConnectionFactory> nodes, List<String> uris) {
			this.nodes = nodes;
			this.uris = uris;
		}

		/**
		 * Set how long one node may take to answer; the attempt is parallel, so a stopped node
		 * costs this once.
		 * @param perNodeTimeout the timeout, default 100 ms
		 * @return this builder
		 */
		public Builder perNodeTimeout(Duration perNodeTimeout) {
			this.perNodeTimeout = perNodeTimeout;
			return this;
		}

		/**
		 * Set the share of a lease kept back for clock drift between the nodes and this process.
		 * @param driftFactor the drift factor, in (0, 0.1], default 0.01
		 * @return this builder
		 */
		public Builder driftFactor(double driftFactor) {
			this.driftFactor = driftFactor;
			return this;
		}

		/**
		 * Set the shortest validity a fresh grant may have; a grant whose quorum took so long
		 * that less is left is given back and retried.
		 * @param minValidity the minimum validity, default zero
		 * @return this builder
		 */
		public Builder minValidity(Duration minValidity) {
			this.minValidity = minValidity;
			return this;
		}

		/**
		 * Keep every node out of the quorums until its server has run for this long: the
		 * delayed restart of the Redlock analysis, enforced by the nodes rather than by how you
		 * restart them. A node that restarted (without persistence, from an RDB snapshot, or
		 * from an append-only file that missed its last second) may have lost locks that are
		 * still held through the other nodes; it grants nothing until every such lease has run
		 * out. Each node's acquire script reads its uptime ({@code INFO server}): a node that
		 * refuses {@code INFO} fails the build. A deployment whose nodes all just started waits
		 * the delay once.
		 * The longest lease, extension and hold-at-least ({@link #maxLeaseTime(Duration)}) is
		 * capped by the delay. Every registry on the same nodes must set it.
		 * @param restartDelay the delay, at least the lease time; {@code null} (the default) for
		 * none, when every node runs with {@code appendonly yes} and {@code appendfsync always}
		 * @return this builder
		 */
		public Builder restartDelay(Duration restartDelay) {
			this.restartDelay = restartDelay;
			return this;
		}

		/**
		 * Build the registry, connecting to every node once. One node, or an even number of
		 * nodes, is logged at WARN.
		 * @return the registry
		 * @throws LockConfigurationException naming the option that is invalid, or the two nodes
		 * that are not independent (the same replication id: one server listed under two
		 * addresses, or a master and its replica), or, with a restart delay, the nodes that answer
		 * but do not tell their uptime
		 */
		public RedlockRegistry build() {
			RedlockRegistry registry;
			List<RedlockNode> nodes;
			try {
				RegistrySettings settings = validate();
				nodes = nodes();
				registry = new RedlockRegistry(settings, new RedlockStore(nodes, this.perNodeTimeout),
						this.nodeFactories);
			}
			catch (RuntimeException ex) {
				// Validation creates the connection factories of the URIs before it checks the
				// nodes: an invalid node must not leave them running.
				if (this.nodeFactories != null) {
					this.nodeFactories.destroyOwned();
				}
				throw ex;
			}
			new RedlockStartup(nodes, this.nodeFactories.names()).start(this.restartDelay, registry);
			return registry;
		}

		/**
		 * Check every option, each rule once: the Redlock timing here, the shared options in
		 * {@link #settings(double, Duration)}, the nodes when they are listed.
		 */
		private RegistrySettings validate() {
			if (this.perNodeTimeout == null || this.perNodeTimeout.isNegative() || this.perNodeTimeout.isZero()) {
				throw new InvalidRegistryOptionException("perNodeTimeout", this.perNodeTimeout,
						"perNodeTimeout must be positive but was '" + this.perNodeTimeout + "'");
			}
			if (!(this.driftFactor > 0 && this.driftFactor <= 0.1)) {
				throw new InvalidRegistryOptionException("driftFactor", this.driftFactor,
						"driftFactor must be in (0, 0.1] but was '" + this.driftFactor + "'");
			}
			Duration lease = (leaseTime() != null) ? leaseTime() : Duration.ZERO;
			Duration needed = this.perNodeTimeout.plus(RegistrySettings.driftMargin(lease, this.driftFactor))
				.plus(this.minValidity);
			if (leaseTime() == null || leaseTime().compareTo(needed) <= 0) {
				throw new InvalidRegistryOptionException("leaseTime", leaseTime(), "leaseTime '" + leaseTime()
						+ "' must be longer than perNodeTimeout + drift + minValidity ('" + needed
						+ "'), or no grant could ever be valid");
			}
			if (this.restartDelay != null && this.restartDelay.compareTo(leaseTime()) < 0) {
				throw new InvalidRegistryOptionException("restartDelay", this.restartDelay, "restartDelay '"
						+ this.restartDelay + "' must be at least the leaseTime '" + leaseTime()
						+ "': a node that lost a lock could vote again while it is held");
			}
			RegistrySettings settings = settings(this.driftFactor, this.minValidity);
			this.nodeFactories = new RedlockNodeFactories(this.nodes);
			this.nodeFactories.addUris(this.uris, this.perNodeTimeout);
			this.nodeFactories.requireIndependent();
			return settings;
		}

		private List<RedlockNode> nodes() {
			List<RedlockNode> nodes = new ArrayList<>();
			for (RedisConnectionFactory node : this.nodeFactories.all()) {
				nodes.add(new RedlockNode(node, keyPrefix(), fenceRetentionTime(), publishesReleases(),
						this.restartDelay));
			}
			return nodes;
		}

		/**
		 * Return the longest lease, capped by the restart delay: no lease, extension or
		 * hold-at-least may outlast a node's time out of the quorums.
		 */
		@Override
		protected Duration grantableMaxLeaseTime() {
			Duration max = super.grantableMaxLeaseTime();
			return (this.restartDelay != null && this.restartDelay.compareTo(max) < 0) ? this.restartDelay : max;
		}

	}

}

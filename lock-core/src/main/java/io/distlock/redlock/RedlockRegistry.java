package io.distlock.redlock;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisPassword;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.distlock.core.DistLock;
import io.distlock.core.DistReadWriteLock;
import io.distlock.core.LockConfigurationException;
import io.distlock.core.LockFeature;
import io.distlock.engine.AbstractLockRegistry;
import io.distlock.engine.RegistrySettings;
import io.distlock.redis.AbstractRedisRegistryBuilder;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.redis.RedisLockStore;

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

	private final int nodes;

	private final List<RedisConnectionFactory> nodeConnectionFactories;

	private final List<LettuceConnectionFactory> ownedFactories;

	private final RedlockStore store;

	/** How long a node sits out after its server started, or {@code null} for no delay. */
	private final Duration restartDelay;

	private RedlockRegistry(Builder builder) {
		this(builder, new RedlockStore(builder.stores(), builder.perNodeTimeout));
	}

	private RedlockRegistry(Builder builder, RedlockStore store) {
		super(store, builder.settings());
		this.store = store;
		this.nodes = builder.nodes.size();
		this.nodeConnectionFactories = List.copyOf(builder.nodes);
		this.ownedFactories = List.copyOf(builder.ownedFactories);
		this.restartDelay = builder.restartDelay;
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
		return this.nodes;
	}

	/**
	 * Return the nodes' connection factories, in the order given: for checks of the nodes'
	 * settings, such as the starter's eviction check. The registry uses them; do not stop them.
	 * @return the connection factories
	 */
	public List<RedisConnectionFactory> getNodeConnectionFactories() {
		return this.nodeConnectionFactories;
	}

	/**
	 * Return how many nodes must agree.
	 * @return the quorum
	 */
	public int getQuorum() {
		return this.nodes / 2 + 1;
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

	/**
	 * Connect to every node and load the scripts now: a first connection and a first script load
	 * can take longer than a short per-node timeout, and the first acquisition should not pay.
	 * Then check what can be known of the nodes at startup: two nodes that share a replication id
	 * (one server reached by two addresses, or a master and its replica) fail the build, as a
	 * quorum of them is no quorum; one node or an even number of nodes is warned about.
	 * @param nodeNames the nodes' addresses, or positions, in the order of the nodes
	 */
	private void startUp(List<String> nodeNames) {
		Log logger = LogFactory.getLog(RedlockRegistry.class);
		if (this.nodes == 1) {
			logger.warn("Redlock over 1 node tolerates no failed node and costs more than a RedisLockRegistry "
					+ "on that node; use 3 or 5 independent nodes");
		}
		else if (this.nodes % 2 == 0) {
			logger.warn("Redlock over " + this.nodes + " nodes needs " + getQuorum() + " of them to agree, so it "
					+ "tolerates " + (this.nodes - getQuorum()) + " failed node(s), as many as " + (this.nodes - 1)
					+ " node(s) would; use an odd number of nodes");
		}
		RedlockStore.WarmUp warmUp = this.store.warmUp();
		if (warmUp.answered() < this.nodes) {
			// Best effort: nodes that are down now are retried by every acquisition.
			logger.warn("Only " + warmUp.answered() + " of " + this.nodes + " Redlock nodes answered at startup");
		}
		if (this.restartDelay != null) {
			checkUptimes(warmUp, nodeNames, logger);
		}
		Map<String, Integer> firstWithId = new HashMap<>();
		for (int i = 0; i < warmUp.replicationIds().size(); i++) {
			Optional<String> id = warmUp.replicationIds().get(i);
			Integer first = id.isPresent() ? firstWithId.putIfAbsent(id.get(), i) : null;
			if (first != null) {
				throw new LockConfigurationException("Redlock nodes '" + nodeNames.get(first) + "' and '"
						+ nodeNames.get(i) + "' are not independent: both report the replication id " + id.get()
						+ ", so they are one server reached by two addresses, or a master and its replica. "
						+ "A quorum needs independent Redis servers; list each server once and no replica");
			}
		}
	}

	/**
	 * With a restart delay, refuse nodes that answered but do not tell their uptime: their
	 * acquire script reads it with {@code INFO}, so every acquisition on them would fail. Log the
	 * nodes that still sit the delay out.
	 */
	private void checkUptimes(RedlockStore.WarmUp warmUp, List<String> nodeNames, Log logger) {
		List<String> silent = new ArrayList<>();
		for (int i = 0; i < warmUp.uptimes().size(); i++) {
			Optional<Duration> uptime = warmUp.uptimes().get(i);
			if (warmUp.warm().get(i) && uptime.isEmpty()) {
				silent.add(nodeNames.get(i));
			}
			Duration left = uptime.map((up) -> RedisLockStore.restartDelayLeft(up, this.restartDelay))
				.orElse(Duration.ZERO);
			if (left.compareTo(Duration.ZERO) > 0) {
				logger.warn("Redlock node '" + nodeNames.get(i) + "' started " + uptime.get().toSeconds()
						+ "s ago: with a restart delay of " + this.restartDelay + " it counts towards no quorum for "
						+ "about " + left.toSeconds() + "s more");
			}
		}
		if (!silent.isEmpty()) {
			throw new LockConfigurationException("Redlock nodes " + silent + " do not tell their uptime (INFO server "
					+ "is refused or renamed), which a restart delay needs: their acquire script reads it, so every "
					+ "acquisition on them would fail. Allow INFO for distlock's Redis user (ACL +info) or remove the "
					+ "restart delay (distlock.redlock.restart-delay)");
		}
	}

	@Override
	public void close() {
		super.close();
		this.ownedFactories.forEach(LettuceConnectionFactory::destroy);
	}

	/**
	 * Builds a {@link RedlockRegistry}. Every option has a safe default.
	 */
	public static final class Builder extends AbstractRedisRegistryBuilder<Builder> {

		/** The shortest driver timeout of the connections a builder creates from URIs. */
		private static final Duration MIN_DRIVER_TIMEOUT = Duration.ofSeconds(2);

		private final List<RedisConnectionFactory> nodes;

		private final List<String> uris;

		private final List<LettuceConnectionFactory> ownedFactories = new ArrayList<>();

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
			try {
				// Inside the try: validation creates the connection factories of the URIs first,
				// and a later invalid option must not leave them running.
				validate();
				registry = new RedlockRegistry(this);
			}
			catch (RuntimeException ex) {
				this.ownedFactories.forEach(LettuceConnectionFactory::destroy);
				throw ex;
			}
			try {
				registry.startUp(nodeNames());
			}
			catch (RuntimeException ex) {
				// Closing the registry destroys the connection factories it created.
				try {
					registry.close();
				}
				catch (RuntimeException closing) {
					ex.addSuppressed(closing);
				}
				throw ex;
			}
			return registry;
		}

		private void validate() {
			if (this.perNodeTimeout == null || this.perNodeTimeout.isNegative() || this.perNodeTimeout.isZero()) {
				throw new LockConfigurationException(
						"perNodeTimeout must be positive but was '" + this.perNodeTimeout + "'");
			}
			if (!(this.driftFactor > 0 && this.driftFactor <= 0.1)) {
				throw new LockConfigurationException("driftFactor must be in (0, 0.1] but was '" + this.driftFactor + "'");
			}
			Duration needed = this.perNodeTimeout.plus(RegistrySettings.driftMargin(leaseTime(), this.driftFactor))
				.plus(this.minValidity);
			if (leaseTime() == null || leaseTime().compareTo(needed) <= 0) {
				throw new LockConfigurationException("leaseTime '" + leaseTime() + "' must be longer than "
						+ "perNodeTimeout + drift + minValidity ('" + needed + "'), or no grant could ever be valid");
			}
			if (this.restartDelay != null && this.restartDelay.compareTo(leaseTime()) < 0) {
				throw new LockConfigurationException("restartDelay '" + this.restartDelay + "' must be at least the "
						+ "leaseTime '" + leaseTime() + "': a node that lost a lock could vote again while it is held");
			}
			if (!this.uris.isEmpty()) {
				createFactories();
			}
			if (this.nodes.isEmpty()) {
				throw new LockConfigurationException("Redlock needs at least one node");
			}
			Set<String> seen = new HashSet<>();
			for (RedisConnectionFactory node : this.nodes) {
				String address = address(node);
				if (address != null && !seen.add(address)) {
					throw new LockConfigurationException("Redlock node '" + address + "' is listed twice; "
							+ "the nodes must be independent");
				}
			}
		}

		private void createFactories() {
			Set<String> seen = new HashSet<>();
			for (String uri : this.uris) {
				RedisStandaloneConfiguration configuration = nodeConfiguration(uri);
				String address = configuration.getHostName() + ":" + configuration.getPort();
				if (!seen.add(address)) {
					throw new LockConfigurationException(
							"Redlock node '" + address + "' is listed twice; the nodes must be independent");
				}
				// The quorum call waits for each node at most the per-node timeout. The driver's
				// own timeout also bounds the connection handshake, which on a cold client takes
				// longer than a short per-node timeout: it is kept longer, and the registry's
				// warm-up connects every node in parallel when it is built.
				Duration driverTimeout = (this.perNodeTimeout.compareTo(MIN_DRIVER_TIMEOUT) < 0) ? MIN_DRIVER_TIMEOUT
						: this.perNodeTimeout;
				LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration,
						LettuceClientConfiguration.builder().commandTimeout(driverTimeout).build());
				factory.afterPropertiesSet();
				factory.start();
				this.ownedFactories.add(factory);
				this.nodes.add(factory);
			}
		}

		/**
		 * Read {@code redis://[[user]:password@]host[:port][/database]}.
		 */
		private static RedisStandaloneConfiguration nodeConfiguration(String uri) {
			URI parsed;
			try {
				parsed = new URI(uri.trim());
			}
			catch (URISyntaxException ex) {
				throw new LockConfigurationException("Redlock node '" + uri + "' is not a Redis URI", ex);
			}
			if (!"redis".equals(parsed.getScheme()) || parsed.getHost() == null) {
				throw new LockConfigurationException(
						"Redlock node '" + uri + "' is not a redis://host:port URI");
			}
			RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration(parsed.getHost(),
					(parsed.getPort() > 0) ? parsed.getPort() : 6379);
			String path = parsed.getPath();
			if (path != null && path.length() > 1) {
				configuration.setDatabase(Integer.parseInt(path.substring(1)));
			}
			String userInfo = parsed.getUserInfo();
			if (userInfo != null) {
				int colon = userInfo.indexOf(':');
				if (colon > 0) {
					configuration.setUsername(userInfo.substring(0, colon));
				}
				configuration.setPassword(RedisPassword.of(userInfo.substring(colon + 1)));
			}
			return configuration;
		}

		private static String address(RedisConnectionFactory node) {
			if (node instanceof LettuceConnectionFactory lettuce && lettuce.getClusterConfiguration() == null) {
				return lettuce.getHostName() + ":" + lettuce.getPort();
			}
			return null;
		}

		private List<String> nodeNames() {
			List<String> names = new ArrayList<>();
			for (int i = 0; i < this.nodes.size(); i++) {
				String address = address(this.nodes.get(i));
				names.add((address != null) ? address : "node " + (i + 1));
			}
			return names;
		}

		private List<RedisLockStore> stores() {
			List<RedisLockStore> stores = new ArrayList<>();
			for (RedisConnectionFactory node : this.nodes) {
				stores.add(RedisLockStore.forNode(node, keyPrefix(), fenceRetentionTime(), publishesReleases(),
						this.restartDelay));
			}
			return stores;
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

		private RegistrySettings settings() {
			return settings(this.driftFactor, this.minValidity);
		}

	}

}

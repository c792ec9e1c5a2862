package io.distlock.redlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.distlock.core.LockConfigurationException;

/**
 * What a Redlock registry does with its nodes once, when it is built: connect to every node and
 * load the scripts (a first connection and a first script load can take longer than a short
 * per-node timeout, and the first acquisition should not pay), then check what can be known of
 * the nodes at startup. Two nodes that share a replication id (one server reached by two
 * addresses, or a master and its replica) fail the build, as a quorum of them is no quorum; with
 * a restart delay, so do nodes that do not tell their uptime; one node or an even number of
 * nodes is warned about.
 */
final class RedlockStartup {

	/** How long the warm-up at startup waits for the nodes. */
	static final Duration WARM_UP_TIMEOUT = Duration.ofSeconds(3);

	private static final Log logger = LogFactory.getLog(RedlockRegistry.class);

	private final List<RedlockNode> nodes;

	private final List<String> nodeNames;

	private final int quorum;

	RedlockStartup(List<RedlockNode> nodes, List<String> nodeNames) {
		this.nodes = nodes;
		this.nodeNames = nodeNames;
		this.quorum = nodes.size() / 2 + 1;
	}

	/**
	 * Warm the nodes up and check them; close the registry if they fail the checks.
	 * @param restartDelay the nodes' restart delay, or {@code null} for none
	 * @param registry the registry on the nodes
	 * @throws LockConfigurationException naming the nodes that are not independent, or that do
	 * not tell their uptime
	 */
	void start(Duration restartDelay, RedlockRegistry registry) {
		try {
			start(restartDelay);
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
	}

	private void start(Duration restartDelay) {
		int size = this.nodes.size();
		if (size == 1) {
			logger.warn("Redlock over 1 node tolerates no failed node and costs more than a RedisLockRegistry "
					+ "on that node; use 3 or 5 independent nodes");
		}
		else if (size % 2 == 0) {
			logger.warn("Redlock over " + size + " nodes needs " + this.quorum + " of them to agree, so it "
					+ "tolerates " + (size - this.quorum) + " failed node(s), as many as " + (size - 1)
					+ " node(s) would; use an odd number of nodes");
		}
		List<NodeState> states = warmUp();
		long answered = states.stream().filter((state) -> state != null).count();
		if (answered < size) {
			// Best effort: nodes that are down now are retried by every acquisition.
			logger.warn("Only " + answered + " of " + size + " Redlock nodes answered at startup");
		}
		if (restartDelay != null) {
			checkUptimes(states, restartDelay);
		}
		Map<String, Integer> firstWithId = new HashMap<>();
		for (int i = 0; i < states.size(); i++) {
			Optional<String> id = (states.get(i) != null) ? states.get(i).replicationId() : Optional.empty();
			Integer first = id.isPresent() ? firstWithId.putIfAbsent(id.get(), i) : null;
			if (first != null) {
				throw new LockConfigurationException("Redlock nodes '" + this.nodeNames.get(first) + "' and '"
						+ this.nodeNames.get(i) + "' are not independent: both report the replication id " + id.get()
						+ ", so they are one server reached by two addresses, or a master and its replica. "
						+ "A quorum needs independent Redis servers; list each server once and no replica");
			}
		}
	}

	/**
	 * Connect to every node, load the scripts and read its replication id and uptime, in
	 * parallel; best effort. Connecting is the one blocking step of a node (the driver makes its
	 * first connection on the thread that asks for it), so each node warms up on a thread of its
	 * own that ends with it; this happens once, when the registry is built, never per call. It
	 * waits for the nodes longer than the per-node timeout (up to {@link #WARM_UP_TIMEOUT}): a
	 * cold client's first connection takes longer than a short timeout, which is why the warm-up
	 * exists.
	 * @return each node's state, in the order of the nodes; {@code null} for a node that was not
	 * warmed up in time
	 */
	private List<NodeState> warmUp() {
		List<CompletableFuture<NodeState>> warmed = new ArrayList<>();
		for (int i = 0; i < this.nodes.size(); i++) {
			RedlockNode node = this.nodes.get(i);
			CompletableFuture<NodeState> done = new CompletableFuture<>();
			Thread thread = new Thread(() -> {
				try {
					node.warmUp();
					done.complete(new NodeState(node.replicationId(), node.uptime()));
				}
				catch (RuntimeException ex) {
					done.completeExceptionally(ex);
				}
			}, "distlock-redlock-warm-up-" + i);
			thread.setDaemon(true);
			thread.start();
			warmed.add(done);
		}
		try {
			CompletableFuture.allOf(warmed.toArray(CompletableFuture[]::new))
				.get(WARM_UP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | TimeoutException ex) {
			// Counted below: nodes that failed or are still connecting are not warmed up.
		}
		List<NodeState> states = new ArrayList<>();
		for (CompletableFuture<NodeState> done : warmed) {
			boolean warm = done.isDone() && !done.isCompletedExceptionally();
			states.add(warm ? done.join() : null);
		}
		return states;
	}

	/**
	 * With a restart delay, refuse nodes that answered but do not tell their uptime: their
	 * acquire script reads it with {@code INFO}, so every acquisition on them would fail. Log the
	 * nodes that still sit the delay out.
	 */
	private void checkUptimes(List<NodeState> states, Duration restartDelay) {
		List<String> silent = new ArrayList<>();
		for (int i = 0; i < states.size(); i++) {
			NodeState state = states.get(i);
			Optional<Duration> uptime = (state != null) ? state.uptime() : Optional.empty();
			if (state != null && uptime.isEmpty()) {
				silent.add(this.nodeNames.get(i));
			}
			Duration left = uptime.map((up) -> RedlockNode.restartDelayLeft(up, restartDelay)).orElse(Duration.ZERO);
			if (left.compareTo(Duration.ZERO) > 0) {
				logger.warn("Redlock node '" + this.nodeNames.get(i) + "' started " + uptime.get().toSeconds()
						+ "s ago: with a restart delay of " + restartDelay + " it counts towards no quorum for "
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

	/**
	 * What the warm-up read of a node.
	 * @param replicationId the node's replication id; empty when it does not tell it
	 * @param uptime how long ago the node's server started; empty when it does not tell it
	 * ({@code INFO} refused or renamed)
	 */
	private record NodeState(Optional<String> replicationId, Optional<Duration> uptime) {
	}

}

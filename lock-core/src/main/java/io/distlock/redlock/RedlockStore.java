package io.distlock.redlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.distlock.core.DistributedLockException;
import io.distlock.core.LockConfigurationException;
import io.distlock.store.LockMode;
import io.distlock.store.LockStore;
import io.distlock.store.UndecidedRenewalException;
import io.distlock.redis.DriverThreads;
import io.distlock.redis.RedisLockStore;

/**
 * A {@link LockStore} over N independent Redis nodes, as Redlock prescribes: a grant is a quorum
 * ({@code N/2 + 1}) of per-node grants, taken in parallel within a per-node timeout; a failed
 * attempt is given back on every node; a renewal counts when a quorum renews (a node that
 * restarted empty gets the key back); a holder's extension of a fixed lease counts when a
 * quorum extends it (and re-creates nothing); a release counts when a quorum still held the
 * grant.
 * <p>
 * The fencing token of a grant is the largest per-node token of its quorum. Any two quorums
 * share a node, where the later grant's token is strictly larger; the maxima are ordered as
 * the grants only while the nodes' clocks differ by less than the time between the grants.
 * It is not a consensus-backed counter.
 * <p>
 * With a restart delay, a node grants nothing until its server has run that long (see
 * {@link RedisLockStore#forNode(org.springframework.data.redis.connection.RedisConnectionFactory, String, Duration, boolean, Duration)}).
 */
final class RedlockStore implements LockStore {

	private static final Log logger = LogFactory.getLog(RedlockStore.class);

	/** How long the warm-up at startup waits for the nodes. */
	static final Duration WARM_UP_TIMEOUT = Duration.ofSeconds(3);

	/** The shortest time a release waits for a renewal on its way before giving back again. */
	private static final Duration MIN_RENEWAL_WAIT_TIME = Duration.ofSeconds(2);

	private final List<RedisLockStore> nodes;

	private final QuorumCall quorum;

	private final Duration perNodeTimeout;

	/**
	 * The renewals on their way per grant: one that overlaps another (the watchdog starts the
	 * next batch once a quorum answered, while a slow node may still run the last) joins it, so
	 * that a release waits for every one of them.
	 */
	private final Map<String, CompletableFuture<Void>> renewing = new ConcurrentHashMap<>();

	/** Grants released lately, with when: a renewal computed before the release skips them. */
	private final Map<String, Long> released = new ConcurrentHashMap<>();

	RedlockStore(List<RedisLockStore> nodes, Duration perNodeTimeout) {
		this.nodes = List.copyOf(nodes);
		this.perNodeTimeout = perNodeTimeout;
		this.quorum = new QuorumCall(this.nodes, perNodeTimeout);
	}

	@Override
	public void checkKey(String key) {
		this.nodes.get(0).checkKey(key);
	}

	@Override
	public boolean isIoThread(Thread thread) {
		return DriverThreads.isDriverThread(thread);
	}

	/**
	 * Return the per-node timeout: an attempt that finds a node silent is decided only when it
	 * has passed, whatever is left of the caller's wait time.
	 */
	@Override
	public Duration acquireAllowance() {
		return this.perNodeTimeout;
	}

	@Override
	public CompletableFuture<Acquisition> tryAcquire(LockMode mode, String key, String owner, Duration leaseTime,
			Duration waitTime) {
		if (mode != LockMode.EXCLUSIVE) {
			return CompletableFuture.failedFuture(notExclusive(mode));
		}
		QuorumCall.Call<Acquisition> call = this.quorum.start(
				(node) -> node.tryAcquire(LockMode.EXCLUSIVE, key, owner, leaseTime, waitTime), Acquisition::acquired,
				QuorumCall.Until.QUORUM_SUCCEEDED);
		return call.decided().thenCompose((outcomes) -> acquired(key, owner, call, outcomes));
	}

	private CompletableFuture<Acquisition> acquired(String key, String owner, QuorumCall.Call<Acquisition> call,
			List<QuorumCall.Outcome<Acquisition>> outcomes) {
		long token = 0;
		int granted = 0;
		int answered = 0;
		List<Long> holderTtls = new ArrayList<>();
		for (QuorumCall.Outcome<Acquisition> outcome : outcomes) {
			if (outcome.ok()) {
				answered++;
				if (outcome.result().acquired()) {
					granted++;
					token = Math.max(token, outcome.result().fencingToken());
				}
				else {
					holderTtls.add(outcome.result().holderTtlMillis());
				}
			}
		}
		if (granted >= this.quorum.quorum()) {
			return CompletableFuture.completedFuture(Acquisition.granted(token));
		}
		giveBack(key, owner, call, outcomes);
		List<QuorumCall.Outcome<Acquisition>> failed = outcomes.stream()
			.filter((outcome) -> outcome.answered() && outcome.failure() != null)
			.toList();
		if (failed.size() > this.quorum.size() - this.quorum.quorum()) {
			// So many nodes failed outright (refused, reset, an error reply) that the others
			// cannot make a quorum: say so rather than wait it out, as a single Redis that fails.
			return CompletableFuture.failedFuture(new RedlockUnavailableException(unavailable(key, failed)));
		}
		// Too few grants, or too few answers in time (slow or stopped nodes): like contention,
		// not acquired; the engine retries after a random delay while the wait time lasts.
		return CompletableFuture
			.completedFuture(Acquisition.taken((answered < this.quorum.quorum()) ? -1 : quorumTtl(holderTtls)));
	}

	private String unavailable(String key, List<QuorumCall.Outcome<Acquisition>> failed) {
		if (failed.size() == this.quorum.size()) {
			return "No Redlock node answered for key '" + key + "': " + failed.get(0).failure().getMessage();
		}
		StringBuilder message = new StringBuilder().append(failed.size())
			.append(" of ")
			.append(this.quorum.size())
			.append(" Redlock nodes failed for key '")
			.append(key)
			.append("', too many for a quorum of ")
			.append(this.quorum.quorum())
			.append(':');
		for (QuorumCall.Outcome<Acquisition> outcome : failed) {
			message.append(" node ").append(outcome.node() + 1).append(": ").append(outcome.failure().getMessage())
				.append(';');
		}
		return message.substring(0, message.length() - 1);
	}

	@Override
	public CompletableFuture<Boolean> release(LockMode mode, String key, String owner) {
		if (mode != LockMode.EXCLUSIVE) {
			return CompletableFuture.failedFuture(notExclusive(mode));
		}
		// Mark first, check for a renewal after: a renewal that registers before the mark is
		// waited for below, one that registers after it sees the mark and skips the grant.
		String id = grantId(key, owner);
		forgetOldReleases();
		this.released.put(id, System.nanoTime());
		// A renewal that registered before the mark may re-create the key on a node where this
		// release's delete arrives first, and still finish (and leave the map) before the
		// release's last answer: remember it now, not only after the release.
		CompletableFuture<Void> renewalAtMark = this.renewing.get(id);
		CompletableFuture<Boolean> released = releaseOnQuorum(key, owner);
		return released.handle((answer, failure) -> {
			CompletableFuture<Void> later = this.renewing.get(id);
			return (later != null) ? later : renewalAtMark;
		}).thenCompose((renewal) -> {
			if (renewal == null) {
				return released;
			}
			// A renewal already on its way re-creates the key on a node where this release
			// deleted it first: wait for it, then give the key back once more. Bounded: a node
			// that hangs beyond its command timeout keeps the renewal open.
			return endedOrTimeUp(renewal, renewalWaitTime())
				.handle((renewed, late) -> releaseOnQuorum(key, owner))
				.thenCompose((again) -> again)
				// The second give-back is best effort, whatever it met: the re-created key
				// expires with its lease. The release's answer is the first give-back's.
				.handle((again, failure) -> released)
				.thenCompose((answer) -> answer);
		});
	}

	/**
	 * Return a future that completes when the given one ends or the time is up, whichever comes
	 * first, leaving the given one alone. The timer is never cancelled: cancelling it when the
	 * renewal ends would take the timer queue's lock on the driver's event loop.
	 */
	private static CompletableFuture<Void> endedOrTimeUp(CompletableFuture<?> future, Duration time) {
		CompletableFuture<Void> ended = new CompletableFuture<>();
		future.whenComplete((result, failure) -> ended.complete(null));
		CompletableFuture.delayedExecutor(time.toNanos(), TimeUnit.NANOSECONDS, Runnable::run)
			.execute(() -> ended.complete(null));
		return ended;
	}

	/**
	 * Return how long a release waits for a renewal on its way before it gives the key back once
	 * more: four per-node timeouts, and at least {@link #MIN_RENEWAL_WAIT_TIME}.
	 */
	private Duration renewalWaitTime() {
		Duration fourTimeouts = this.perNodeTimeout.multipliedBy(4);
		return (fourTimeouts.compareTo(MIN_RENEWAL_WAIT_TIME) > 0) ? fourTimeouts : MIN_RENEWAL_WAIT_TIME;
	}

	/**
	 * Release on every node.
	 * @return completes with {@code true} if a quorum still held the grant, {@code false} if a
	 * quorum answered that it did not, exceptionally with {@link RedlockUnavailableException} if
	 * the nodes that did not answer decide it
	 */
	private CompletableFuture<Boolean> releaseOnQuorum(String key, String owner) {
		QuorumCall.Call<Boolean> call = this.quorum.start((node) -> node.release(LockMode.EXCLUSIVE, key, owner),
				Boolean::booleanValue, QuorumCall.Until.EVERY_ANSWER);
		return call.decided().thenCompose((outcomes) -> {
			int released = count(outcomes);
			if (released >= this.quorum.quorum()) {
				return CompletableFuture.completedFuture(true);
			}
			if (released + unknown(outcomes) >= this.quorum.quorum()) {
				// Slow or failing nodes: whether the grant was still held is unknown, not lost.
				return CompletableFuture.failedFuture(new RedlockUnavailableException("Release of lock for key '" + key
						+ "' confirmed by " + released + " of " + this.quorum.size()
						+ " nodes; the others did not answer in time"));
			}
			return CompletableFuture.completedFuture(false);
		});
	}

	@Override
	public CompletableFuture<boolean[]> renew(List<HeldKey> grants, Duration leaseTime) {
		for (HeldKey grant : grants) {
			if (grant.mode() != LockMode.EXCLUSIVE) {
				return CompletableFuture.failedFuture(notExclusive(grant.mode()));
			}
		}
		CompletableFuture<Void> done = new CompletableFuture<>();
		for (HeldKey grant : grants) {
			this.renewing.merge(grantId(grant.key(), grant.owner()), done,
					(running, next) -> CompletableFuture.allOf(running, next));
		}
		List<HeldKey> live = new ArrayList<>();
		for (HeldKey grant : grants) {
			if (!this.released.containsKey(grantId(grant.key(), grant.owner()))) {
				live.add(grant);
			}
		}
		if (live.isEmpty()) {
			renewed(grants, done);
			return CompletableFuture.completedFuture(new boolean[grants.size()]);
		}
		QuorumCall.Call<boolean[]> call = this.quorum.start((node) -> node.renewOrRecreate(live, leaseTime),
				(result) -> true, QuorumCall.Until.EVERY_ANSWER);
		// The batch counts as finished only when every node's renewal has ended: a slow one
		// still on its way could re-create a key that a release deletes meanwhile.
		call.allDone().whenComplete((result, failure) -> renewed(grants, done));
		return call.decided().thenCompose((outcomes) -> {
			boolean[] renewed = new boolean[grants.size()];
			int unknown = unknown(outcomes);
			boolean undecided = false;
			for (int i = 0; i < grants.size(); i++) {
				int index = live.indexOf(grants.get(i));
				if (index < 0) {
					continue;
				}
				int nodes = 0;
				for (QuorumCall.Outcome<boolean[]> outcome : outcomes) {
					if (outcome.ok() && outcome.result()[index]) {
						nodes++;
					}
				}
				renewed[i] = nodes >= this.quorum.quorum();
				undecided |= !renewed[i] && nodes + unknown >= this.quorum.quorum();
			}
			if (undecided) {
				// Slow or failing nodes decide it: a failed attempt for the undecided grants,
				// retried until their validity deadline, not a refusal; the grants a quorum renewed
				// count as renewed.
				return CompletableFuture.failedFuture(new UndecidedRenewalException(
						"Renewal confirmed by too few Redlock nodes in time; " + unknown + " of " + this.quorum.size()
								+ " did not answer",
						renewed));
			}
			return CompletableFuture.completedFuture(renewed);
		});
	}

	/**
	 * Mark a batch of renewals as ended, and forget the grants no other renewal runs for.
	 */
	private void renewed(List<HeldKey> grants, CompletableFuture<Void> done) {
		done.complete(null);
		for (HeldKey grant : grants) {
			this.renewing.computeIfPresent(grantId(grant.key(), grant.owner()),
					(id, renewals) -> renewals.isDone() ? null : renewals);
		}
	}

	/**
	 * Extend the grant on every node that still holds it, never re-creating it where it is gone
	 * (unlike a renewal, which heals a node that restarted empty): counts when a quorum extended
	 * it.
	 */
	@Override
	public CompletableFuture<Boolean> extend(HeldKey grant, Duration leaseTime) {
		if (grant.mode() != LockMode.EXCLUSIVE) {
			return CompletableFuture.failedFuture(notExclusive(grant.mode()));
		}
		QuorumCall.Call<Boolean> call = this.quorum.start((node) -> node.extend(grant, leaseTime),
				Boolean::booleanValue, QuorumCall.Until.QUORUM_SUCCEEDED);
		return call.decided().thenCompose((outcomes) -> {
			int extended = count(outcomes);
			if (extended >= this.quorum.quorum()) {
				return CompletableFuture.completedFuture(true);
			}
			if (extended + unknown(outcomes) >= this.quorum.quorum()) {
				// Slow or failing nodes decide it: not known to be refused.
				return CompletableFuture.failedFuture(new RedlockUnavailableException("Extension of lock for key '"
						+ grant.key() + "' confirmed by " + extended + " of " + this.quorum.size()
						+ " nodes; the others did not answer in time"));
			}
			return CompletableFuture.completedFuture(false);
		});
	}

	@Override
	public CompletableFuture<Boolean> isHeld(HeldKey grant) {
		if (grant.mode() != LockMode.EXCLUSIVE) {
			return CompletableFuture.failedFuture(notExclusive(grant.mode()));
		}
		QuorumCall.Call<Boolean> call = this.quorum.start((node) -> node.isHeld(grant), Boolean::booleanValue,
				QuorumCall.Until.QUORUM_SUCCEEDED);
		return call.decided().thenCompose((outcomes) -> {
			int held = count(outcomes);
			if (held >= this.quorum.quorum()) {
				return CompletableFuture.completedFuture(true);
			}
			if (held + unknown(outcomes) >= this.quorum.quorum()) {
				return CompletableFuture.failedFuture(new RedlockUnavailableException("Could not confirm lock for key '"
						+ grant.key() + "': too few Redlock nodes answered in time"));
			}
			return CompletableFuture.completedFuture(false);
		});
	}

	@Override
	public boolean listen(Consumer<String> releasedKeys) {
		boolean listening = false;
		for (RedisLockStore node : this.nodes) {
			listening |= node.listen(releasedKeys);
		}
		return listening;
	}

	@Override
	public CompletableFuture<Void> ping() {
		QuorumCall.Call<Boolean> call = this.quorum.start((node) -> node.ping().thenApply((pong) -> true),
				Boolean::booleanValue, QuorumCall.Until.EVERY_ANSWER);
		return call.decided().thenCompose((outcomes) -> {
			int answering = count(outcomes);
			if (answering < this.quorum.quorum()) {
				return CompletableFuture.failedFuture(new RedlockUnavailableException(
						"Only " + answering + " of " + this.quorum.size() + " Redlock nodes answer PING"));
			}
			return CompletableFuture.completedFuture(null);
		});
	}

	/**
	 * Connect to every node, load the scripts and read its replication id, in parallel; best
	 * effort. Connecting is the one blocking step of a node (the driver makes its first
	 * connection on the thread that asks for it), so each node warms up on a thread of its own
	 * that ends with it; this happens once, when the registry is built, never per call. It waits
	 * for the nodes longer than the per-node timeout (up to {@link #WARM_UP_TIMEOUT}): a cold
	 * client's first connection takes longer than a short timeout, which is why the warm-up
	 * exists.
	 * @return what the warm-up found
	 */
	WarmUp warmUp() {
		List<CompletableFuture<NodeState>> warmed = new ArrayList<>();
		for (int i = 0; i < this.nodes.size(); i++) {
			RedisLockStore node = this.nodes.get(i);
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
		int answered = (int) states.stream().filter((state) -> state != null).count();
		List<Optional<String>> replicationIds = states.stream()
			.map((state) -> (state != null) ? state.replicationId() : Optional.<String>empty())
			.toList();
		List<Optional<Duration>> uptimes = states.stream()
			.map((state) -> (state != null) ? state.uptime() : Optional.<Duration>empty())
			.toList();
		List<Boolean> warm = states.stream().map((state) -> state != null).toList();
		return new WarmUp(answered, warm, replicationIds, uptimes);
	}

	private record NodeState(Optional<String> replicationId, Optional<Duration> uptime) {
	}

	/**
	 * What the warm-up found.
	 * @param answered how many nodes were warmed up
	 * @param replicationIds each node's replication id, in the order of the nodes; empty for a
	 * node that did not answer in time or does not tell it
	 * @param warm whether each node was warmed up, in the order of the nodes
	 * @param uptimes how long ago each node's server started, in the order of the nodes; empty for
	 * a node that did not answer in time or does not tell it ({@code INFO} refused or renamed)
	 */
	record WarmUp(int answered, List<Boolean> warm, List<Optional<String>> replicationIds,
			List<Optional<Duration>> uptimes) {
	}

	@Override
	public void close() {
		this.nodes.forEach(RedisLockStore::close);
	}

	/**
	 * Give a failed attempt back, without waiting: at once on the nodes that answered, so that
	 * none of its keys stay behind; on the others once their attempt has ended, so that the
	 * give-back cannot overtake an attempt not even sent yet. Owner-compared, so a late
	 * give-back never touches a later attempt's grant (each attempt has an owner of its own).
	 */
	private void giveBack(String key, String owner, QuorumCall.Call<Acquisition> call,
			List<QuorumCall.Outcome<Acquisition>> outcomes) {
		for (QuorumCall.Outcome<Acquisition> outcome : outcomes) {
			RedisLockStore node = this.nodes.get(outcome.node());
			if (outcome.answered()) {
				releaseQuietly(node, key, owner);
			}
			else {
				call.futures().get(outcome.node()).whenComplete((result, failure) -> releaseQuietly(node, key, owner));
			}
		}
	}

	private static void releaseQuietly(RedisLockStore node, String key, String owner) {
		node.release(LockMode.EXCLUSIVE, key, owner).whenComplete((released, failure) -> {
			if (failure != null && logger.isDebugEnabled()) {
				// Best effort: the key expires with its lease anyway.
				logger.debug("Could not give back a failed attempt on lock for key '" + key + "' on a Redlock node",
						failure);
			}
		});
	}

	/**
	 * Return how long until a quorum of nodes may be free: the quorum-th shortest holder TTL.
	 */
	private long quorumTtl(List<Long> holderTtls) {
		List<Long> known = holderTtls.stream().filter((ttl) -> ttl >= 0).sorted().toList();
		int needed = this.quorum.quorum() - (this.quorum.size() - holderTtls.size());
		if (known.isEmpty() || needed <= 0) {
			return -1;
		}
		return known.get(Math.min(known.size(), needed) - 1);
	}

	private void forgetOldReleases() {
		long horizon = System.nanoTime() - TimeUnit.MINUTES.toNanos(1);
		this.released.values().removeIf((releasedAt) -> releasedAt - horizon < 0);
	}

	private static String grantId(String key, String owner) {
		return key + "\u0000" + owner;
	}

	private static int unknown(List<? extends QuorumCall.Outcome<?>> outcomes) {
		int unknown = 0;
		for (QuorumCall.Outcome<?> outcome : outcomes) {
			if (!outcome.ok()) {
				unknown++;
			}
		}
		return unknown;
	}

	private static int count(List<QuorumCall.Outcome<Boolean>> outcomes) {
		int count = 0;
		for (QuorumCall.Outcome<Boolean> outcome : outcomes) {
			if (outcome.ok() && outcome.result()) {
				count++;
			}
		}
		return count;
	}

	private static LockConfigurationException notExclusive(LockMode mode) {
		return new LockConfigurationException(
				"RedlockRegistry grants exclusive locks (and multi-locks of them) only, not " + mode + " locks");
	}

	/**
	 * Too few Redlock nodes answered to decide.
	 */
	static class RedlockUnavailableException extends DistributedLockException {

		private static final long serialVersionUID = 1L;

		RedlockUnavailableException(String message) {
			super(message);
		}

	}

}

package io.distlock.redlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

import io.distlock.core.DistributedLockException;
import io.distlock.core.LockConfigurationException;
import io.distlock.store.LockMode;
import io.distlock.store.LockStore;
import io.distlock.redis.RedisLockStore;

/**
 * A {@link LockStore} over N independent Redis nodes, as Redlock prescribes: a grant is a quorum
 * ({@code N/2 + 1}) of per-node grants, taken in parallel within a per-node timeout; a failed
 * attempt is given back on every node; a renewal counts when a quorum renews (a node that
 * restarted empty gets the key back); a release counts when a quorum still held the grant.
 * <p>
 * The fencing token of a grant is the largest per-node token of its quorum. Any two quorums
 * share a node, where the later grant's token is strictly larger; the maxima are ordered as
 * the grants only while the nodes' clocks differ by less than the time between the grants.
 * It is not a consensus-backed counter.
 */
final class RedlockStore implements LockStore {

	/** How long the warm-up at startup waits for the nodes. */
	static final Duration WARM_UP_TIMEOUT = Duration.ofSeconds(3);

	private final List<RedisLockStore> nodes;

	private final QuorumCall quorum;

	private final ExecutorService executor;

	private final Duration perNodeTimeout;

	/** The grants whose renewal is on its way, each with the latch its batch opens when done. */
	/**
	 * The renewals on their way per grant: one that overlaps another (the watchdog starts the
	 * next batch once a quorum answered, while a slow node may still run the last) joins it, so
	 * that a release waits for every one of them.
	 */
	private final Map<String, CompletableFuture<Void>> renewing = new ConcurrentHashMap<>();

	/** Grants released lately, with when: a renewal computed before the release skips them. */
	private final Map<String, Long> released = new ConcurrentHashMap<>();

	RedlockStore(List<RedisLockStore> nodes, Duration perNodeTimeout, ExecutorService executor) {
		this.nodes = List.copyOf(nodes);
		this.executor = executor;
		this.perNodeTimeout = perNodeTimeout;
		this.quorum = new QuorumCall(this.nodes, perNodeTimeout, executor);
	}

	@Override
	public void checkKey(String key) {
		this.nodes.get(0).checkKey(key);
	}

	@Override
	public CompletableFuture<Acquisition> tryAcquire(LockMode mode, String key, String owner, Duration leaseTime,
			Duration waitTime) {
		return supply(() -> tryAcquireBlocking(mode, key, owner, leaseTime, waitTime));
	}

	@Override
	public CompletableFuture<Boolean> release(LockMode mode, String key, String owner) {
		return supply(() -> releaseBlocking(mode, key, owner));
	}

	@Override
	public CompletableFuture<boolean[]> renew(List<HeldKey> grants, Duration leaseTime) {
		return supply(() -> renewBlocking(grants, leaseTime));
	}

	@Override
	public CompletableFuture<Boolean> isHeld(HeldKey grant) {
		return supply(() -> isHeldBlocking(grant));
	}

	@Override
	public CompletableFuture<Void> ping() {
		return supply(() -> {
			pingBlocking();
			return null;
		});
	}

	private static <T> CompletableFuture<T> supply(java.util.function.Supplier<T> call) {
		try {
			return CompletableFuture.completedFuture(call.get());
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	private Acquisition tryAcquireBlocking(LockMode mode, String key, String owner, Duration leaseTime,
			Duration waitTime) {
		requireExclusive(mode);
		QuorumCall.Call<Acquisition> call = this.quorum.start(
				(node) -> node.tryAcquire(LockMode.EXCLUSIVE, key, owner, leaseTime, waitTime).join(), Acquisition::acquired,
				true);
		List<QuorumCall.Outcome<Acquisition>> outcomes = call.outcomes();
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
			return Acquisition.granted(token);
		}
		giveBack(key, owner, call);
		if (answered == 0 && outcomes.stream().allMatch(QuorumCall.Outcome::answered)) {
			// Every node failed outright (refused, reset): say so rather than wait it out.
			throw new RedlockUnavailableException("No Redlock node answered for key '" + key + "': "
					+ outcomes.get(0).failure().getMessage());
		}
		// Too few grants, or too few answers in time (slow or stopped nodes): like contention,
		// not acquired; the engine retries after a random delay while the wait time lasts.
		return Acquisition.taken((answered < this.quorum.quorum()) ? -1 : quorumTtl(holderTtls));
	}

	private boolean releaseBlocking(LockMode mode, String key, String owner) {
		requireExclusive(mode);
		// Mark first, check for a renewal after: a renewal that registers before the mark is
		// waited for below, one that registers after it sees the mark and skips the grant.
		String id = grantId(key, owner);
		forgetOldReleases();
		this.released.put(id, System.nanoTime());
		boolean released = releaseOnQuorum(key, owner);
		CompletableFuture<Void> renewal = this.renewing.get(id);
		if (renewal != null) {
			// A renewal already on its way re-creates the key on a node where this release
			// deleted it first: wait for it, then give the key back once more.
			try {
				// Bounded: a node that hangs beyond its command timeout keeps the renewal open.
				renewal.get(Math.max(2_000, this.perNodeTimeout.toMillis() * 4), TimeUnit.MILLISECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			catch (ExecutionException | TimeoutException ex) {
				// Waited long enough: the give-back below is best effort either way.
			}
			try {
				releaseOnQuorum(key, owner);
			}
			catch (RedlockUnavailableException ex) {
				// The second give-back is best effort: the re-created key expires with its lease.
			}
		}
		return released;
	}

	/**
	 * Release on every node.
	 * @return {@code true} if a quorum still held the grant, {@code false} if a quorum answered
	 * that it did not
	 * @throws RedlockUnavailableException if the nodes that did not answer decide it
	 */
	private boolean releaseOnQuorum(String key, String owner) {
		List<QuorumCall.Outcome<Boolean>> outcomes = this.quorum
			.call((node) -> node.release(LockMode.EXCLUSIVE, key, owner).join(), Boolean::booleanValue, false);
		int released = count(outcomes);
		if (released >= this.quorum.quorum()) {
			return true;
		}
		if (released + unknown(outcomes) >= this.quorum.quorum()) {
			// Slow or failing nodes: whether the grant was still held is unknown, not lost.
			throw new RedlockUnavailableException("Release of lock for key '" + key + "' confirmed by " + released
					+ " of " + this.quorum.size() + " nodes; the others did not answer in time");
		}
		return false;
	}

	private boolean[] renewBlocking(List<HeldKey> grants, Duration leaseTime) {
		for (HeldKey grant : grants) {
			requireExclusive(grant.mode());
		}
		CompletableFuture<Void> done = new CompletableFuture<>();
		for (HeldKey grant : grants) {
			this.renewing.merge(grantId(grant.key(), grant.owner()), done,
					(running, next) -> CompletableFuture.allOf(running, next));
		}
		boolean[] renewed = new boolean[grants.size()];
		CompletableFuture<Void> finished = CompletableFuture.completedFuture(null);
		try {
			List<HeldKey> live = new ArrayList<>();
			for (HeldKey grant : grants) {
				if (!this.released.containsKey(grantId(grant.key(), grant.owner()))) {
					live.add(grant);
				}
			}
			if (live.isEmpty()) {
				return renewed;
			}
			QuorumCall.Call<boolean[]> call = this.quorum.start((node) -> node.renewOrRecreate(live, leaseTime).join(),
					(result) -> true, false);
			// The batch counts as finished only when every node's renewal has ended: a slow one
			// still on its way could re-create a key that a release deletes meanwhile.
			finished = call.allDone();
			List<QuorumCall.Outcome<boolean[]>> outcomes = call.outcomes();
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
				// Slow or failing nodes decide it: a failed attempt, retried until the validity
				// deadline, not a refusal.
				throw new RedlockUnavailableException("Renewal confirmed by too few Redlock nodes in time; " + unknown
						+ " of " + this.quorum.size() + " did not answer");
			}
			return renewed;
		}
		finally {
			finished.whenComplete((result, failure) -> {
				done.complete(null);
				for (HeldKey grant : grants) {
					this.renewing.computeIfPresent(grantId(grant.key(), grant.owner()),
							(id, renewals) -> renewals.isDone() ? null : renewals);
				}
			});
		}
	}

	private boolean isHeldBlocking(HeldKey grant) {
		requireExclusive(grant.mode());
		List<QuorumCall.Outcome<Boolean>> outcomes = this.quorum.call((node) -> node.isHeld(grant).join(),
				Boolean::booleanValue, true);
		int held = count(outcomes);
		if (held >= this.quorum.quorum()) {
			return true;
		}
		if (held + unknown(outcomes) >= this.quorum.quorum()) {
			throw new RedlockUnavailableException("Could not confirm lock for key '" + grant.key()
					+ "': too few Redlock nodes answered in time");
		}
		return false;
	}

	@Override
	public boolean listen(Consumer<String> releasedKeys) {
		boolean listening = false;
		for (RedisLockStore node : this.nodes) {
			listening |= node.listen(releasedKeys);
		}
		return listening;
	}

	private void pingBlocking() {
		List<QuorumCall.Outcome<Boolean>> outcomes = this.quorum.call((node) -> {
			node.ping().join();
			return true;
		}, Boolean::booleanValue, false);
		int answering = count(outcomes);
		if (answering < this.quorum.quorum()) {
			throw new RedlockUnavailableException(
					"Only " + answering + " of " + this.quorum.size() + " Redlock nodes answer PING");
		}
	}

	/**
	 * Connect to every node and load the scripts, in parallel; best effort. It waits for the
	 * nodes longer than the per-node timeout (up to {@link #WARM_UP_TIMEOUT}): a cold client's
	 * first connection takes longer than a short timeout, which is why the warm-up exists.
	 * @return how many nodes were warmed up
	 */
	int warmUp() {
		QuorumCall.Call<Boolean> call = this.quorum.start((node) -> {
			node.warmUp();
			return true;
		}, Boolean::booleanValue, false);
		try {
			call.allDone().get(WARM_UP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | TimeoutException ex) {
			// Counted below: nodes that failed or are still connecting are not warmed up.
		}
		List<QuorumCall.Outcome<Boolean>> outcomes = new ArrayList<>();
		for (int i = 0; i < call.futures().size(); i++) {
			outcomes.add(QuorumCall.Outcome.of(call.futures().get(i), i));
		}
		return count(outcomes);
	}

	@Override
	public void close() {
		this.nodes.forEach(RedisLockStore::close);
	}

	/**
	 * Give a failed attempt back: at once on the nodes that answered, so that none of its keys
	 * stay behind; on the others once their attempt has ended, so that the give-back cannot
	 * overtake an attempt not even sent yet.
	 */
	private void giveBack(String key, String owner, QuorumCall.Call<Acquisition> call) {
		List<RedisLockStore> silent = new ArrayList<>();
		for (QuorumCall.Outcome<Acquisition> outcome : call.outcomes()) {
			if (!outcome.answered()) {
				RedisLockStore node = this.nodes.get(outcome.node());
				silent.add(node);
				call.futures().get(outcome.node())
					.whenCompleteAsync((result, failure) -> releaseQuietly(node, key, owner), this.executor);
			}
		}
		this.quorum.call((node) -> silent.contains(node) || node.release(LockMode.EXCLUSIVE, key, owner).join(),
				(released) -> true, false);
	}

	private static void releaseQuietly(RedisLockStore node, String key, String owner) {
		try {
			node.release(LockMode.EXCLUSIVE, key, owner).join();
		}
		catch (RuntimeException ex) {
			// Best effort on a node that did not answer: the key expires with its lease anyway.
		}
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

	private static void requireExclusive(LockMode mode) {
		if (mode != LockMode.EXCLUSIVE) {
			throw new LockConfigurationException(
					"RedlockRegistry grants exclusive locks (and multi-locks of them) only, not " + mode + " locks");
		}
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

package io.distlock.redlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.function.Consumer;

import io.distlock.core.DistributedLockException;
import io.distlock.core.LockConfigurationException;
import io.distlock.engine.LockMode;
import io.distlock.engine.LockStore;
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

	private final List<RedisLockStore> nodes;

	private final QuorumCall quorum;

	private final ExecutorService executor;

	RedlockStore(List<RedisLockStore> nodes, Duration perNodeTimeout, ExecutorService executor) {
		this.nodes = List.copyOf(nodes);
		this.executor = executor;
		this.quorum = new QuorumCall(this.nodes, perNodeTimeout, executor);
	}

	@Override
	public void checkKey(String key) {
		this.nodes.get(0).checkKey(key);
	}

	@Override
	public Acquisition tryAcquire(LockMode mode, String key, String owner, Duration leaseTime, Duration waitTime) {
		requireExclusive(mode);
		List<QuorumCall.Outcome<Acquisition>> outcomes = this.quorum.call(
				(node) -> node.tryAcquire(LockMode.EXCLUSIVE, key, owner, leaseTime, waitTime), Acquisition::acquired,
				true);
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
		giveBack(key, owner, outcomes);
		if (answered < this.quorum.quorum()) {
			throw new RedlockUnavailableException("Only " + answered + " of " + this.quorum.size()
					+ " Redlock nodes answered for key '" + key + "'; " + this.quorum.quorum() + " are needed");
		}
		return Acquisition.taken(quorumTtl(holderTtls));
	}

	@Override
	public boolean release(LockMode mode, String key, String owner) {
		requireExclusive(mode);
		List<QuorumCall.Outcome<Boolean>> outcomes = this.quorum
			.call((node) -> node.release(LockMode.EXCLUSIVE, key, owner), Boolean::booleanValue, false);
		return count(outcomes) >= this.quorum.quorum();
	}

	@Override
	public boolean[] renew(List<HeldKey> grants, Duration leaseTime) {
		for (HeldKey grant : grants) {
			requireExclusive(grant.mode());
		}
		List<QuorumCall.Outcome<boolean[]>> outcomes = this.quorum
			.call((node) -> node.renewOrRecreate(grants, leaseTime), (renewed) -> true, false);
		boolean[] renewed = new boolean[grants.size()];
		for (int i = 0; i < grants.size(); i++) {
			int nodes = 0;
			for (QuorumCall.Outcome<boolean[]> outcome : outcomes) {
				if (outcome.ok() && outcome.result()[i]) {
					nodes++;
				}
			}
			renewed[i] = nodes >= this.quorum.quorum();
		}
		return renewed;
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
	public void ping() {
		List<QuorumCall.Outcome<Boolean>> outcomes = this.quorum.call((node) -> {
			node.ping();
			return true;
		}, Boolean::booleanValue, false);
		int answering = count(outcomes);
		if (answering < this.quorum.quorum()) {
			throw new RedlockUnavailableException(
					"Only " + answering + " of " + this.quorum.size() + " Redlock nodes answer PING");
		}
	}

	@Override
	public void close() {
		this.nodes.forEach(RedisLockStore::close);
	}

	/**
	 * Give a failed attempt back: at once on the nodes that answered, so that none of its keys
	 * stay behind; in the background on the others, which may still apply it later.
	 */
	private void giveBack(String key, String owner, List<QuorumCall.Outcome<Acquisition>> outcomes) {
		List<RedisLockStore> silent = new ArrayList<>();
		for (QuorumCall.Outcome<Acquisition> outcome : outcomes) {
			if (!outcome.answered()) {
				silent.add(this.nodes.get(outcome.node()));
			}
		}
		this.quorum.call((node) -> silent.contains(node) || node.release(LockMode.EXCLUSIVE, key, owner),
				(released) -> true, false);
		for (RedisLockStore node : silent) {
			this.executor.execute(() -> releaseQuietly(node, key, owner));
		}
	}

	private static void releaseQuietly(RedisLockStore node, String key, String owner) {
		try {
			node.release(LockMode.EXCLUSIVE, key, owner);
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

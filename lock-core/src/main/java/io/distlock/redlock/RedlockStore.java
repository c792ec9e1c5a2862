package io.distlock.redlock;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import io.distlock.core.LockConfigurationException;
import io.distlock.redis.DriverThreads;
import io.distlock.store.LockMode;
import io.distlock.store.LockStore;
import io.distlock.store.UndecidedRenewalException;

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
 * {@link RedlockNode}).
 */
final class RedlockStore implements LockStore {

	private final List<RedlockNode> nodes;

	private final QuorumCall quorum;

	private final QuorumAttempt attempt;

	private final RenewalsInFlight renewals;

	private final Duration perNodeTimeout;

	RedlockStore(List<RedlockNode> nodes, Duration perNodeTimeout) {
		this.nodes = List.copyOf(nodes);
		this.perNodeTimeout = perNodeTimeout;
		this.quorum = new QuorumCall(this.nodes, perNodeTimeout);
		this.attempt = new QuorumAttempt(this.nodes, this.quorum);
		this.renewals = new RenewalsInFlight(perNodeTimeout);
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
		return this.attempt.acquire(key, owner, leaseTime, waitTime);
	}

	@Override
	public CompletableFuture<Boolean> release(LockMode mode, String key, String owner) {
		if (mode != LockMode.EXCLUSIVE) {
			return CompletableFuture.failedFuture(notExclusive(mode));
		}
		return this.renewals.release(key, owner, () -> releaseOnQuorum(key, owner));
	}

	/**
	 * Release on every node.
	 * @return completes with {@code true} if a quorum still held the grant, {@code false} if a
	 * quorum answered that it did not, exceptionally with {@link RedlockUnavailableException} if
	 * the nodes that did not answer decide it
	 */
	private CompletableFuture<Boolean> releaseOnQuorum(String key, String owner) {
		QuorumCall.Call<Boolean> call = this.quorum.start((node) -> node.release(key, owner), Boolean::booleanValue,
				QuorumCall.Until.EVERY_ANSWER);
		return call.decided().thenCompose((outcomes) -> {
			int released = QuorumCall.succeeded(outcomes);
			if (released >= this.quorum.quorum()) {
				return CompletableFuture.completedFuture(true);
			}
			if (released + QuorumCall.unknown(outcomes) >= this.quorum.quorum()) {
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
		CompletableFuture<Void> done = this.renewals.started(grants);
		List<HeldKey> live = this.renewals.live(grants);
		if (live.isEmpty()) {
			this.renewals.ended(grants, done);
			return CompletableFuture.completedFuture(new boolean[grants.size()]);
		}
		QuorumCall.Call<boolean[]> call = this.quorum.start((node) -> node.renewOrRecreate(live, leaseTime),
				(result) -> true, QuorumCall.Until.EVERY_ANSWER);
		// The batch counts as finished only when every node's renewal has ended: a slow one
		// still on its way could re-create a key that a release deletes meanwhile.
		call.allDone().whenComplete((result, failure) -> this.renewals.ended(grants, done));
		return call.decided().thenCompose((outcomes) -> {
			boolean[] renewed = new boolean[grants.size()];
			int unknown = QuorumCall.unknown(outcomes);
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
			int extended = QuorumCall.succeeded(outcomes);
			if (extended >= this.quorum.quorum()) {
				return CompletableFuture.completedFuture(true);
			}
			if (extended + QuorumCall.unknown(outcomes) >= this.quorum.quorum()) {
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
			int held = QuorumCall.succeeded(outcomes);
			if (held >= this.quorum.quorum()) {
				return CompletableFuture.completedFuture(true);
			}
			if (held + QuorumCall.unknown(outcomes) >= this.quorum.quorum()) {
				return CompletableFuture.failedFuture(new RedlockUnavailableException("Could not confirm lock for key '"
						+ grant.key() + "': too few Redlock nodes answered in time"));
			}
			return CompletableFuture.completedFuture(false);
		});
	}

	@Override
	public boolean listen(Consumer<String> releasedKeys) {
		boolean listening = false;
		for (RedlockNode node : this.nodes) {
			listening |= node.listen(releasedKeys);
		}
		return listening;
	}

	@Override
	public CompletableFuture<Void> ping() {
		QuorumCall.Call<Boolean> call = this.quorum.start((node) -> node.ping().thenApply((pong) -> true),
				Boolean::booleanValue, QuorumCall.Until.EVERY_ANSWER);
		return call.decided().thenCompose((outcomes) -> {
			int answering = QuorumCall.succeeded(outcomes);
			if (answering < this.quorum.quorum()) {
				return CompletableFuture.failedFuture(new RedlockUnavailableException(
						"Only " + answering + " of " + this.quorum.size() + " Redlock nodes answer PING"));
			}
			return CompletableFuture.completedFuture(null);
		});
	}

	@Override
	public void close() {
		this.nodes.forEach(RedlockNode::close);
	}

	private static LockConfigurationException notExclusive(LockMode mode) {
		return new LockConfigurationException(
				"RedlockRegistry grants exclusive locks (and multi-locks of them) only, not " + mode + " locks");
	}

}

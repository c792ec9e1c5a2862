package io.distlock.redlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.distlock.store.LockStore.Acquisition;

/**
 * One acquisition attempt over the Redlock nodes, decided from their answers: granted when a
 * quorum granted it, with the largest per-node token; otherwise given back on every node and
 * answered as taken (the engine retries after a random delay while the wait lasts), or as
 * unavailable when so many nodes failed outright that no quorum can form.
 */
final class QuorumAttempt {

	private static final Log logger = LogFactory.getLog(QuorumAttempt.class);

	private final List<RedlockNode> nodes;

	private final QuorumCall quorum;

	QuorumAttempt(List<RedlockNode> nodes, QuorumCall quorum) {
		this.nodes = nodes;
		this.quorum = quorum;
	}

	/**
	 * Ask every node for the lock and decide.
	 */
	CompletableFuture<Acquisition> acquire(String key, String owner, Duration leaseTime, Duration waitTime) {
		QuorumCall.Call<Acquisition> call = this.quorum.start(
				(node) -> node.tryAcquire(key, owner, leaseTime, waitTime), Acquisition::acquired,
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

	/**
	 * Give a failed attempt back, without waiting: at once on the nodes that answered, so that
	 * none of its keys stay behind; on the others once their attempt has ended, so that the
	 * give-back cannot overtake an attempt not even sent yet. Owner-compared, so a late
	 * give-back never touches a later attempt's grant (each attempt has an owner of its own).
	 */
	private void giveBack(String key, String owner, QuorumCall.Call<Acquisition> call,
			List<QuorumCall.Outcome<Acquisition>> outcomes) {
		for (QuorumCall.Outcome<Acquisition> outcome : outcomes) {
			RedlockNode node = this.nodes.get(outcome.node());
			if (outcome.answered()) {
				releaseQuietly(node, key, owner);
			}
			else {
				call.futures().get(outcome.node()).whenComplete((result, failure) -> releaseQuietly(node, key, owner));
			}
		}
	}

	private static void releaseQuietly(RedlockNode node, String key, String owner) {
		node.release(key, owner).whenComplete((released, failure) -> {
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

}

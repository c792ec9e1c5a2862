package io.distlock.engine;

import java.util.concurrent.CompletableFuture;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.distlock.store.LockStore;

/**
 * Sends the checkpoint that ends a run of local handoffs (see {@link LocalHandoff}): one store
 * call that keeps the grant for this process if no other process waits, after which the grant is
 * handed to the waiter of this process with a new run of handoffs, and releases it otherwise.
 * Its reply and the release's bound meet in a {@link CheckpointDecision}, which picks the waiter;
 * the release admits it ({@link CheckpointDecision#taker()}) once it is over.
 */
final class Checkpoints {

	private static final Log logger = LogFactory.getLog(Checkpoints.class);

	private final LocalHandoff handoff;

	private final CallDeadlines deadlines;

	Checkpoints(LocalHandoff handoff, CallDeadlines deadlines) {
		this.handoff = handoff;
		this.deadlines = deadlines;
	}

	/**
	 * Send the checkpoint of a grant this process hands over.
	 * @param sentNanos when the release that sends it began
	 * @return the answer within {@link StoreCalls#RELEASE_TIMEOUT}, or
	 * {@link LockStore.Release#KEPT} if the checkpoint kept the grant and a waiter here took it
	 */
	CompletableFuture<LockStore.Release> send(Grant grant, CheckpointDecision decision, long sentNanos) {
		CompletableFuture<LockStore.Release> answered;
		try {
			answered = this.handoff.store()
				.keepUnlessAwaited(grant.key(), grant.owner(), LocalHandoff.lastToken(grant), this.handoff.leaseTime())
				.thenCompose((checkpoint) -> {
					if (!checkpoint.kept()) {
						return CompletableFuture.completedFuture(checkpoint.release());
					}
					Grant kept = this.handoff.kept(grant, checkpoint.fencingToken(), sentNanos);
					return switch (decision.handOff(kept)) {
						case TAKEN -> CompletableFuture.completedFuture(LockStore.Release.KEPT);
						case NOT_TAKEN -> release(kept);
						case TOO_LATE -> releaseLate(kept);
					};
				});
		}
		catch (RuntimeException ex) {
			answered = CompletableFuture.failedFuture(ex);
		}
		return decision.answer(this.deadlines.within(answered, StoreCalls.RELEASE_TIMEOUT));
	}

	/**
	 * Release a grant kept by a checkpoint whose release gave up on the reply and let the next
	 * waiter here go to the store: nobody answers for it but this.
	 */
	private CompletableFuture<LockStore.Release> releaseLate(Grant kept) {
		if (logger.isDebugEnabled()) {
			logger.debug("Releasing lock for key '" + kept.key() + "' kept by a checkpoint that answered after "
					+ StoreCalls.RELEASE_TIMEOUT.toMillis() + "ms, when its release had given up");
		}
		return release(kept).whenComplete((released, failure) -> {
			if (failure != null) {
				// The key expires with its lease, which nobody renews; until then it keeps every
				// process out, so say so as loudly as any other release that failed.
				logger.warn("Could not release lock for key '" + kept.key() + "' kept by a late checkpoint; it expires"
						+ " within " + kept.leaseTime().toMillis() + "ms", StoreCalls.unwrap(failure));
			}
		});
	}

	/**
	 * Delete a kept grant in the store, recording its token: a checkpoint is sent for exclusive
	 * grants only, which local handoff manages.
	 */
	private CompletableFuture<LockStore.Release> release(Grant kept) {
		return this.handoff.store().releaseExclusive(kept.key(), kept.owner(), LocalHandoff.lastToken(kept));
	}

}

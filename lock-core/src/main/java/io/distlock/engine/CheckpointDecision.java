package io.distlock.engine;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.distlock.store.LockStore;

/**
 * Where the reply to one checkpoint and the end of its release's wait for that reply meet, so
 * that exactly one of them decides what becomes of the grant. Created by {@link GrantReleaser}
 * for a {@link ReleaseFate#CHECKPOINT} release only.
 * <p>
 * Why: the release waits for the reply at most {@link StoreCalls#RELEASE_TIMEOUT}; past it, the
 * release reports a failure and leaves the gate, which admits the next waiter of this process to
 * the store. A kept grant that arrives after that must not be handed to a waiter as well, or two
 * waiters are past the gate at once; it is released in the store instead. The other way round, a
 * release whose bound passes while or after the reply hands the grant over has handed it over,
 * and must neither report a failure nor leave the gate.
 * <p>
 * Nothing here waits: the monitor guards a few field writes and is never held while the gate
 * admits a waiter or a future completes. The reply and the bound each come on whichever thread
 * completes them (usually the driver's and the registry's timer), so either may be first.
 */
final class CheckpointDecision {

	private final Gate gate;

	/** Guarded by this. */
	private State state = State.AWAITING_REPLY;

	/** Guarded by this; the answer of a release whose bound passed while the reply was handing over. */
	private CompletableFuture<LockStore.Release> pendingAnswer;

	/** Guarded by this; the failure that answer reports if the grant was not handed over after all. */
	private Throwable pendingFailure;

	CheckpointDecision(Gate gate) {
		this.gate = gate;
	}

	/**
	 * Hand the grant the checkpoint kept to the first waiter of this process, unless the release
	 * has already given up on the reply.
	 * @param kept the grant the checkpoint kept
	 * @return what became of it; unless {@link Handoff#TAKEN}, the caller releases it in the store
	 */
	Handoff handOff(Grant kept) {
		synchronized (this) {
			if (this.state == State.GAVE_UP) {
				return Handoff.TOO_LATE;
			}
			this.state = State.HANDING_OVER;
		}
		boolean taken = false;
		try {
			taken = this.gate.handOff(kept);
		}
		finally {
			handOffEnded(taken);
		}
		return taken ? Handoff.TAKEN : Handoff.NOT_TAKEN;
	}

	private void handOffEnded(boolean taken) {
		CompletableFuture<LockStore.Release> answer;
		Throwable failure;
		synchronized (this) {
			this.state = taken ? State.HANDED_OVER : State.NOT_HANDED_OVER;
			answer = this.pendingAnswer;
			failure = this.pendingFailure;
		}
		if (answer != null && taken) {
			answer.complete(LockStore.Release.KEPT);
		}
		else if (answer != null) {
			answer.completeExceptionally(failure);
		}
	}

	/**
	 * Return the release's answer: the bounded reply as it is, or, when the bound passed or the
	 * call failed first, {@link LockStore.Release#KEPT} if the reply handed the grant over, and
	 * the failure otherwise. Once the failure is answered, a reply that keeps the grant is
	 * {@link Handoff#TOO_LATE}.
	 * @param bounded the checkpoint's reply within {@link StoreCalls#RELEASE_TIMEOUT}
	 * @return the answer the release acts on
	 */
	CompletableFuture<LockStore.Release> answer(CompletableFuture<LockStore.Release> bounded) {
		return bounded.exceptionallyCompose(this::unanswered);
	}

	private synchronized CompletionStage<LockStore.Release> unanswered(Throwable failure) {
		return switch (this.state) {
			case AWAITING_REPLY -> {
				this.state = State.GAVE_UP;
				yield CompletableFuture.failedFuture(failure);
			}
			case HANDING_OVER -> {
				// Settled by the handoff under way, on its thread, as soon as the gate has answered.
				this.pendingAnswer = new CompletableFuture<>();
				this.pendingFailure = failure;
				yield this.pendingAnswer;
			}
			case HANDED_OVER -> CompletableFuture.completedFuture(LockStore.Release.KEPT);
			case NOT_HANDED_OVER, GAVE_UP -> CompletableFuture.failedFuture(failure);
		};
	}

	/** What became of a grant a checkpoint kept. */
	enum Handoff {

		/** A waiter of this process took it. */
		TAKEN,

		/** The waiter gave up during the round trip: nobody here takes it. */
		NOT_TAKEN,

		/**
		 * The release had already given up on the reply and let the next waiter go to the store:
		 * nobody here may take it.
		 */
		TOO_LATE

	}

	private enum State {

		AWAITING_REPLY, HANDING_OVER, HANDED_OVER, NOT_HANDED_OVER, GAVE_UP

	}

}

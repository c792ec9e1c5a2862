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
 * release whose bound passes after the reply handed the grant over has handed it over, and must
 * neither report a failure nor leave the gate.
 * <p>
 * The waiter that takes the grant is only picked here ({@link #taker()}): the release admits it
 * once it has finished and told its listener, whichever of the reply and the bound answers it,
 * so the next holder's {@code onAcquired} comes after this holder's {@code onReleased}. Picking
 * completes no future, so it happens under the monitor, and the reply and the bound see it
 * either done or not begun.
 * <p>
 * Nothing here waits: the monitor guards a few field writes and the gate's pick, and is never
 * held while a future completes. The reply and the bound each come on whichever thread completes
 * them (usually the driver's and the registry's timer), so either may be first.
 */
final class CheckpointDecision {

	private final Gate gate;

	/** Guarded by this. */
	private State state = State.AWAITING_REPLY;

	/** Guarded by this; the waiter picked to take the kept grant, admitted by the release. */
	private Successor taker = Successor.NONE;

	CheckpointDecision(Gate gate) {
		this.gate = gate;
	}

	/**
	 * Hand the grant the checkpoint kept to the first waiter of this process, unless the release
	 * has already given up on the reply. The waiter is picked, not admitted yet: the release
	 * admits {@link #taker()} once it is over, so that its {@code onReleased} comes first.
	 * @param kept the grant the checkpoint kept
	 * @return what became of it; unless {@link Handoff#TAKEN}, the caller releases it in the store
	 */
	synchronized Handoff handOff(Grant kept) {
		if (this.state == State.GAVE_UP) {
			return Handoff.TOO_LATE;
		}
		this.taker = this.gate.pickForHandOff(kept);
		this.state = this.taker.picked() ? State.HANDED_OVER : State.NOT_HANDED_OVER;
		return this.taker.picked() ? Handoff.TAKEN : Handoff.NOT_TAKEN;
	}

	/**
	 * Return the waiter the kept grant was handed to, for the release to admit once it is over:
	 * picked whenever the answer is {@link LockStore.Release#KEPT}, and
	 * {@link Successor#NONE} otherwise.
	 */
	synchronized Successor taker() {
		return this.taker;
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
			case HANDED_OVER -> CompletableFuture.completedFuture(LockStore.Release.KEPT);
			case NOT_HANDED_OVER, GAVE_UP -> CompletableFuture.failedFuture(failure);
		};
	}

	/** What became of a grant a checkpoint kept. */
	enum Handoff {

		/** A waiter of this process took it: picked, and admitted by the release once it is over. */
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

		AWAITING_REPLY, HANDED_OVER, NOT_HANDED_OVER, GAVE_UP

	}

}

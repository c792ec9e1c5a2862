package io.distlock.engine;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.distlock.store.LockMode;
import io.distlock.store.LockStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The one decision between a checkpoint's reply and the end of its release's wait for it, in
 * every order the two can arrive in: a reply after the release gave up hands nothing over, and a
 * release whose bound passes after the reply handed the grant over answers as handed over, but
 * only then. The waiter that takes the grant is picked, and admitted only by the release.
 */
@Timeout(10)
class CheckpointDecisionTests {

	private final Gate gate = new Gate.Table().retain("k");

	private final CheckpointDecision decision = new CheckpointDecision(this.gate);

	private final CompletableFuture<LockStore.Release> bounded = new CompletableFuture<>();

	private final CompletableFuture<LockStore.Release> answer = this.decision.answer(this.bounded);

	private final StoreCalls.StoreTimeoutException timeout = new StoreCalls.StoreTimeoutException(
			StoreCalls.RELEASE_TIMEOUT);

	@Test
	void aReplyWithinTheBoundIsTheAnswer() {
		GateWaiter waiter = holdTheGateWithAWaiterBehind();
		assertThat(this.decision.handOff(keptGrant())).isEqualTo(CheckpointDecision.Handoff.TAKEN);
		this.bounded.complete(LockStore.Release.KEPT);
		assertThat(this.answer).isCompletedWithValue(LockStore.Release.KEPT);
		assertThat(waiter.admission()).as("picked, admitted by the release once it is over").isNotDone();
		assertThat(this.gate.withdraw(waiter)).as("the picked waiter cannot give up").isFalse();
		this.decision.taker().admit();
		assertThat(waiter.admission().join().handedOff()).isNotNull();
	}

	@Test
	void aKeptGrantThatArrivesAfterTheReleaseGaveUpIsNotHandedOver() {
		GateWaiter waiter = holdTheGateWithAWaiterBehind();
		this.bounded.completeExceptionally(this.timeout);
		assertFailedWithTimeout();

		assertThat(this.decision.handOff(keptGrant())).isEqualTo(CheckpointDecision.Handoff.TOO_LATE);
		assertThat(this.decision.taker()).isSameAs(Successor.NONE);
		assertThat(waiter.admission()).as("left to the gate, which the failed release leaves").isNotDone();
		assertThat(this.gate.withdraw(waiter)).as("still in the queue").isTrue();
	}

	@Test
	void aBoundThatPassesAfterTheHandoffAnswersThatTheGrantWasKeptAndHandedOver() {
		holdTheGateWithAWaiterBehind();
		assertThat(this.decision.handOff(keptGrant())).isEqualTo(CheckpointDecision.Handoff.TAKEN);
		this.bounded.completeExceptionally(this.timeout);
		assertThat(this.answer).isCompletedWithValue(LockStore.Release.KEPT);
	}

	@Test
	void aBoundThatPassesAfterThePickButBeforeTheAdmissionAnswersKeptAndLeavesTheAdmissionToTheRelease() {
		GateWaiter waiter = holdTheGateWithAWaiterBehind();
		assertThat(this.decision.handOff(keptGrant())).isEqualTo(CheckpointDecision.Handoff.TAKEN);
		this.bounded.completeExceptionally(this.timeout);
		assertThat(this.answer).isCompletedWithValue(LockStore.Release.KEPT);
		assertThat(waiter.admission()).isNotDone();
		assertThat(this.decision.taker().picked()).isTrue();
		this.decision.taker().admit();
		assertThat(waiter.admission()).isDone();
	}

	@Test
	void aBoundThatPassesAfterTheWaiterGaveUpIsAFailure() {
		GateWaiter waiter = holdTheGateWithAWaiterBehind();
		assertThat(this.gate.withdraw(waiter)).isTrue();
		assertThat(this.decision.handOff(keptGrant())).as("the caller releases the kept grant in the store")
			.isEqualTo(CheckpointDecision.Handoff.NOT_TAKEN);
		assertThat(this.decision.taker()).isSameAs(Successor.NONE);
		this.bounded.completeExceptionally(this.timeout);
		assertFailedWithTimeout();
	}

	@Test
	void aStoreThatFailsBeforeReplyingIsAFailureAndALaterReplyIsTooLate() {
		holdTheGateWithAWaiterBehind();
		this.bounded.completeExceptionally(new IllegalStateException("connection lost"));
		assertThatExceptionOfType(CompletionException.class).isThrownBy(this.answer::join)
			.withRootCauseInstanceOf(IllegalStateException.class);
		assertThat(this.decision.handOff(keptGrant())).isEqualTo(CheckpointDecision.Handoff.TOO_LATE);
	}

	private GateWaiter holdTheGateWithAWaiterBehind() {
		assertThat(this.gate.tryEnter()).isTrue();
		return this.gate.enter(GateWaiter.HandedGrant.ACCEPTED);
	}

	private void assertFailedWithTimeout() {
		assertThatExceptionOfType(CompletionException.class).isThrownBy(this.answer::join)
			.withCause(this.timeout);
	}

	private Grant keptGrant() {
		HoldRequest request = new HoldRequest(LockMode.EXCLUSIVE, "k", "n", HoldRequest.WAIT_FOREVER, null,
				HoldRequest.Holder.THREAD, HoldRequest.Waiter.UNINTERRUPTIBLE_THREAD, null);
		long now = System.nanoTime();
		return Grant.of(request, "owner", 7, Duration.ofSeconds(30), now, now + Duration.ofSeconds(29).toNanos(),
				now + Duration.ofSeconds(10).toNanos());
	}

}

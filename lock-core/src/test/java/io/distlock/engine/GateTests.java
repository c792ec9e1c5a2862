package io.distlock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.store.LockMode;

/**
 * The local gate: one holder, waiters (futures, not threads) admitted in arrival order by
 * whoever leaves, a waiter that was withdrawn never admitted afterwards, a handed-over grant only
 * for a waiter that can take one, a waiter picked for it committed but admitted only when the
 * holder admits it.
 */
@Timeout(10)
class GateTests {

	private final Gate gate = new Gate.Table().retain("k");

	@Test
	void oneHolderAtATime() {
		assertThat(this.gate.tryEnter()).isTrue();
		assertThat(this.gate.tryEnter()).isFalse();
		GateWaiter waiter = this.gate.enter(GateWaiter.HandedGrant.ACCEPTED);
		assertThat(waiter.admission()).isNotDone();
		this.gate.leave();
		assertThat(waiter.admission()).isCompletedWithValue(Admission.FREE);
		assertThat(this.gate.tryEnter()).as("the admitted waiter holds the gate").isFalse();
		this.gate.leave();
		assertThat(this.gate.tryEnter()).isTrue();
	}

	@Test
	void aFreeGateAdmitsAtOnce() {
		GateWaiter waiter = this.gate.enter(GateWaiter.HandedGrant.REFUSED);
		assertThat(waiter.admission()).isCompletedWithValue(Admission.FREE);
		assertThat(this.gate.tryEnter()).isFalse();
	}

	@Test
	void waitersAreAdmittedInArrivalOrder() {
		this.gate.tryEnter();
		List<Integer> admitted = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			int number = i;
			this.gate.enter(GateWaiter.HandedGrant.ACCEPTED).admission().thenRun(() -> admitted.add(number));
		}
		for (int i = 0; i < 5; i++) {
			assertThat(admitted).hasSize(i);
			this.gate.leave();
		}
		assertThat(admitted).containsExactly(0, 1, 2, 3, 4);
		this.gate.leave();
		assertThat(this.gate.tryEnter()).as("nobody was left waiting").isTrue();
	}

	@Test
	void aWithdrawnWaiterIsNeverAdmittedAndTheNextOneIs() {
		this.gate.tryEnter();
		GateWaiter impatient = this.gate.enter(GateWaiter.HandedGrant.ACCEPTED);
		GateWaiter patient = this.gate.enter(GateWaiter.HandedGrant.ACCEPTED);
		assertThat(this.gate.withdraw(impatient)).isTrue();
		this.gate.leave();
		assertThat(impatient.admission()).isNotDone();
		assertThat(patient.admission()).isDone();
		assertThat(this.gate.withdraw(patient)).as("too late: it holds the gate").isFalse();
		assertThat(this.gate.tryEnter()).as("the patient waiter holds the gate").isFalse();
	}

	@Test
	void aGrantIsHandedOnlyToAWaiterThatCanTakeOne() {
		HoldRequest request = new HoldRequest(LockMode.EXCLUSIVE, "k", "n", HoldRequest.WAIT_FOREVER, null,
				HoldRequest.Holder.THREAD, HoldRequest.Waiter.UNINTERRUPTIBLE_THREAD, null);
		Grant grant = Grant.of(request, "owner", 7, Duration.ofSeconds(30), System.nanoTime(),
				System.nanoTime() + Duration.ofSeconds(29).toNanos(), System.nanoTime());
		this.gate.tryEnter();
		assertThat(this.gate.pickForHandOff(grant)).as("nobody waits").isSameAs(Successor.NONE);

		GateWaiter fixedLease = this.gate.enter(GateWaiter.HandedGrant.REFUSED);
		assertThat(this.gate.pickForHandOff(grant)).as("the first waiter cannot take a grant")
			.isSameAs(Successor.NONE);
		assertThat(fixedLease.admission()).isNotDone();
		assertThat(this.gate.hasWaiterAcceptingHandoff()).isFalse();
		this.gate.leave();
		assertThat(fixedLease.admission().join().handedOff()).isNull();

		GateWaiter renewed = this.gate.enter(GateWaiter.HandedGrant.ACCEPTED);
		assertThat(this.gate.hasWaiterAcceptingHandoff()).isTrue();
		Successor picked = this.gate.pickForHandOff(grant);
		assertThat(picked.picked()).isTrue();
		picked.admit();
		assertThat(renewed.admission().join().handedOff()).isSameAs(grant);
		assertThat(this.gate.tryEnter()).as("the waiter holds the gate").isFalse();
	}

	@Test
	void aWaiterPickedForAHandoffCannotWithdrawAndIsAdmittedOnlyWhenTheHolderAdmitsIt() {
		Grant grant = grant();
		this.gate.tryEnter();
		GateWaiter next = this.gate.enter(GateWaiter.HandedGrant.ACCEPTED);
		GateWaiter after = this.gate.enter(GateWaiter.HandedGrant.ACCEPTED);

		Successor picked = this.gate.pickForHandOff(grant);
		assertThat(picked.picked()).isTrue();
		assertThat(next.admission()).as("picked, not yet admitted").isNotDone();
		assertThat(this.gate.withdraw(next)).as("a picked waiter is committed").isFalse();
		assertThat(this.gate.tryEnter()).as("the gate stays taken between the pick and the admission").isFalse();
		assertThat(this.gate.enter(GateWaiter.HandedGrant.ACCEPTED).admission()).as("an arrival queues").isNotDone();
		assertThat(after.admission()).isNotDone();

		picked.admit();
		assertThat(next.admission()).isCompletedWithValue(new Admission(grant, 0));
		assertThat(after.admission()).as("still behind the admitted waiter").isNotDone();
		assertThat(this.gate.withdraw(after)).isTrue();
	}

	@Test
	void aLeaveWithNobodyWaitingPicksNobodyAndOpensTheGate() {
		this.gate.tryEnter();
		assertThat(this.gate.pickForHandOff(grant())).isSameAs(Successor.NONE);
		assertThat(this.gate.tryEnter()).as("a handoff nobody takes leaves the gate to its holder").isFalse();
		this.gate.leave();
		assertThat(this.gate.tryEnter()).isTrue();
	}

	private Grant grant() {
		HoldRequest request = new HoldRequest(LockMode.EXCLUSIVE, "k", "n", HoldRequest.WAIT_FOREVER, null,
				HoldRequest.Holder.THREAD, HoldRequest.Waiter.UNINTERRUPTIBLE_THREAD, null);
		long now = System.nanoTime();
		return Grant.of(request, "owner", 7, Duration.ofSeconds(30), now, now + Duration.ofSeconds(29).toNanos(), now);
	}

	@Test
	void aYieldingLeaveTellsTheNextWaiterHowLongToHoldBack() {
		this.gate.tryEnter();
		GateWaiter next = this.gate.enter(GateWaiter.HandedGrant.ACCEPTED);
		this.gate.leaveYielding(5_000);
		assertThat(next.admission().join()).isEqualTo(new Admission(null, 5_000));
	}

}

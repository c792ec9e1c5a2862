package io.distlock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The local gate: one holder, waiters admitted in arrival order by whoever leaves, a waiter
 * that gives up never admitted afterwards, and a handed-over grant only for a waiter that can
 * take one.
 */
@Timeout(10)
class GateTests {

	private final Gate gate = new Gate("k", "k", LockMode.EXCLUSIVE);

	@Test
	void oneHolderAtATime() throws Exception {
		assertThat(this.gate.tryEnter()).isTrue();
		assertThat(this.gate.tryEnter()).isFalse();
		assertThat(this.gate.enter(TimeUnit.MILLISECONDS.toNanos(50), false, true, true)).isFalse();
		this.gate.leave();
		assertThat(this.gate.tryEnter()).isTrue();
	}

	@Test
	void waitersAreAdmittedInArrivalOrder() throws Exception {
		this.gate.tryEnter();
		List<Integer> admitted = new ArrayList<>();
		List<Thread> threads = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			int index = i;
			Thread thread = start(() -> {
				try {
					this.gate.enter(0, true, false, true);
					synchronized (admitted) {
						admitted.add(index);
					}
					this.gate.leave();
				}
				catch (InterruptedException ex) {
					throw new IllegalStateException(ex);
				}
			});
			threads.add(thread);
			awaitParked(thread);
		}
		this.gate.leave();
		for (Thread thread : threads) {
			thread.join();
		}
		assertThat(admitted).containsExactly(0, 1, 2, 3, 4);
	}

	@Test
	void aWaiterThatTimedOutIsNeverAdmittedAndTheNextOneIs() throws Exception {
		this.gate.tryEnter();
		CompletableFuture<Boolean> impatient = CompletableFuture
			.supplyAsync(() -> enter(TimeUnit.MILLISECONDS.toNanos(100), true));
		Thread.sleep(20);
		CompletableFuture<Boolean> patient = CompletableFuture.supplyAsync(() -> enter(0, true));
		assertThat(impatient.get(5, TimeUnit.SECONDS)).isFalse();
		assertThat(patient).isNotDone();
		this.gate.leave();
		assertThat(patient.get(5, TimeUnit.SECONDS)).isTrue();
		assertThat(this.gate.tryEnter()).as("the patient waiter holds the gate").isFalse();
	}

	@Test
	void anInterruptBeforeAdmissionEndsAnInterruptibleWait() throws Exception {
		this.gate.tryEnter();
		CompletableFuture<Throwable> failure = new CompletableFuture<>();
		Thread waiter = start(() -> {
			try {
				this.gate.enter(0, true, true, true);
				failure.complete(null);
			}
			catch (InterruptedException ex) {
				failure.complete(ex);
			}
		});
		awaitParked(waiter);
		waiter.interrupt();
		assertThat(failure.get(5, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
		this.gate.leave();
		assertThat(this.gate.tryEnter()).as("nobody was left waiting").isTrue();
	}

	@Test
	void anUninterruptibleWaitKeepsTheInterruptForLater() throws Exception {
		this.gate.tryEnter();
		CompletableFuture<Boolean> interruptedAfter = new CompletableFuture<>();
		Thread waiter = start(() -> {
			enter(0, true);
			interruptedAfter.complete(Thread.currentThread().isInterrupted());
		});
		awaitParked(waiter);
		waiter.interrupt();
		Thread.sleep(50);
		assertThat(interruptedAfter).isNotDone();
		this.gate.leave();
		assertThat(interruptedAfter.get(5, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void aGrantIsHandedOnlyToAWaiterThatCanTakeOne() throws Exception {
		Grant grant = new Grant(LockMode.EXCLUSIVE, "k", "n", "owner", 7, Duration.ofSeconds(30), true,
				System.nanoTime(), System.nanoTime() + Duration.ofSeconds(29).toNanos(), System.nanoTime(), this.gate);
		this.gate.tryEnter();
		assertThat(this.gate.handOff(grant)).as("nobody waits").isFalse();

		CountDownLatch entered = new CountDownLatch(1);
		Thread fixedLease = start(() -> {
			enter(0, false);
			entered.countDown();
		});
		awaitParked(fixedLease);
		assertThat(this.gate.handOff(grant)).as("the first waiter cannot take a grant").isFalse();
		assertThat(entered.getCount()).isEqualTo(1);
		this.gate.leave();
		assertThat(entered.await(5, TimeUnit.SECONDS)).isTrue();
		assertThat(this.gate.takeHandedOff()).isNull();

		CompletableFuture<Grant> taken = new CompletableFuture<>();
		Thread renewed = start(() -> {
			enter(0, true);
			taken.complete(this.gate.takeHandedOff());
		});
		awaitParked(renewed);
		assertThat(this.gate.handOff(grant)).isTrue();
		assertThat(taken.get(5, TimeUnit.SECONDS)).isSameAs(grant);
		assertThat(this.gate.tryEnter()).as("the waiter holds the gate").isFalse();
	}

	private boolean enter(long timeoutNanos, boolean acceptsHandoff) {
		try {
			return this.gate.enter(timeoutNanos, timeoutNanos == 0, false, acceptsHandoff);
		}
		catch (InterruptedException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static Thread start(Runnable task) {
		Thread thread = new Thread(task);
		thread.start();
		return thread;
	}

	private static void awaitParked(Thread thread) throws InterruptedException {
		while (thread.getState() != Thread.State.WAITING && thread.getState() != Thread.State.TIMED_WAITING) {
			Thread.sleep(1);
		}
	}

}

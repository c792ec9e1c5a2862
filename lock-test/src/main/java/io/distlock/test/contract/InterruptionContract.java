package io.distlock.test.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.distlock.core.DistLock;
import io.distlock.engine.AbstractLockRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Interrupted threads: {@code lock()} acquires and keeps the flag, interruptible acquisitions
 * throw, and waiters interrupted while waiting give up their place; none leaves a key behind.
 */
interface InterruptionContract extends LockRegistryContract {

	@Test
	default void lockOnAnInterruptedThreadAcquiresAndKeepsTheFlag() {
		AbstractLockRegistry registry = registry();
		String key = randomKey();
		DistLock lock = registry.obtain(key);
		Thread.currentThread().interrupt();
		lock.lock();
		// Read and clear the flag before the checks, which talk to the store themselves.
		assertThat(Thread.interrupted()).as("flag kept through lock").isTrue();
		assertThat(isHeldInStore(registry, key)).isTrue();
		Thread.currentThread().interrupt();
		lock.unlock();
		assertThat(Thread.interrupted()).as("flag kept through unlock").isTrue();
		assertThat(isHeldInStore(registry, key)).as("released although interrupted").isFalse();
	}

	@Test
	default void interruptibleAcquisitionsOfAnInterruptedThreadThrowAndLeaveNoKey() {
		AbstractLockRegistry registry = registry();
		String key = randomKey();
		DistLock lock = registry.obtain(key);
		try {
			Thread.currentThread().interrupt();
			assertThatExceptionOfType(InterruptedException.class).isThrownBy(lock::lockInterruptibly);
			Thread.currentThread().interrupt();
			assertThatExceptionOfType(InterruptedException.class)
				.isThrownBy(() -> lock.tryLock(Duration.ofSeconds(1)));
		}
		finally {
			Thread.interrupted();
		}
		assertThat(isHeldInStore(registry, key)).isFalse();
		assertThat(registry.localKeyCount()).isZero();
	}

	@Test
	default void waitersInterruptedWhileWaitingGiveUpTheirPlaceAndLeaveNoKey() throws Exception {
		AbstractLockRegistry holder = registry();
		AbstractLockRegistry waiters = registry();
		AbstractLockRegistry late = registry();
		for (boolean fair : offersFairAndReadWriteLocks() ? new boolean[] { false, true } : new boolean[] { false }) {
			String key = randomKey();
			DistLock held = fair ? holder.obtainFair(key) : holder.obtain(key);
			held.lock();
			CountDownLatch waiting = new CountDownLatch(2);
			List<Thread> threads = new CopyOnWriteArrayList<>();
			List<Future<Throwable>> outcomes = new ArrayList<>();
			for (int i = 0; i < 2; i++) {
				boolean interruptibly = i == 0;
				outcomes.add(executor().submit(() -> {
					threads.add(Thread.currentThread());
					DistLock lock = fair ? waiters.obtainFair(key) : waiters.obtain(key);
					waiting.countDown();
					try {
						if (interruptibly) {
							lock.lockInterruptibly();
						}
						else {
							lock.tryLock(Duration.ofSeconds(30));
						}
						lock.unlock();
						return null;
					}
					catch (InterruptedException ex) {
						return ex;
					}
				}));
			}
			assertThat(waiting.await(5, TimeUnit.SECONDS)).isTrue();
			Thread.sleep(300);
			threads.forEach(Thread::interrupt);
			for (Future<Throwable> outcome : outcomes) {
				assertThat(outcome.get(10, TimeUnit.SECONDS)).as("fair=" + fair).isInstanceOf(InterruptedException.class);
			}
			held.unlock();
			DistLock next = fair ? late.obtainFair(key) : late.obtain(key);
			// Granted at once: no interrupted waiter kept a place ahead of it.
			assertThat(next.tryLock(Duration.ofSeconds(2))).as("fair=" + fair).isTrue();
			next.unlock();
			assertThat(isHeldInStore(late, key)).isFalse();
			// A waiter paused between store attempts lets go of its gate on the registry's timer,
			// right after its interrupted thread returned.
			await().atMost(Duration.ofSeconds(5)).until(() -> waiters.localKeyCount() == 0);
		}
	}

}

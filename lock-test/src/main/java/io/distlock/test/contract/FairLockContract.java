package io.distlock.test.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.distlock.core.DistLock;
import io.distlock.engine.AbstractLockRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Fair locks: waiters are granted in arrival order, and one that gives up leaves the queue.
 * Skipped where the registry does not offer fair locks.
 */
interface FairLockContract extends LockRegistryContract {

	@Test
	default void fairLockGrantsWaitersInArrivalOrder() throws Exception {
		assumeTrue(offersFairAndReadWriteLocks(), "fair and read/write locks are not offered");
		AbstractLockRegistry holder = registry();
		String key = randomKey();
		DistLock held = holder.obtainFair(key);
		held.lock();
		List<Integer> order = new CopyOnWriteArrayList<>();
		List<Future<?>> waiters = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			int arrival = i;
			// Each waiter is its own process, so the order comes from the store's queue.
			AbstractLockRegistry waiter = registry();
			waiters.add(executor().submit(() -> {
				DistLock lock = waiter.obtainFair(key);
				assertThat(lock.tryLock(Duration.ofSeconds(20))).isTrue();
				order.add(arrival);
				Thread.sleep(20);
				lock.unlock();
				return null;
			}));
			// Let each waiter join the queue before the next arrives.
			Thread.sleep(150);
		}
		held.unlock();
		for (Future<?> waiter : waiters) {
			waiter.get(30, TimeUnit.SECONDS);
		}
		assertThat(order).containsExactly(0, 1, 2, 3);
	}

	@Test
	default void aFairWaiterThatGivesUpLeavesTheQueue() throws Exception {
		assumeTrue(offersFairAndReadWriteLocks(), "fair and read/write locks are not offered");
		AbstractLockRegistry holder = registry();
		AbstractLockRegistry quitter = registry();
		AbstractLockRegistry next = registry();
		String key = randomKey();
		DistLock held = holder.obtainFair(key);
		held.lock();
		assertThat(executor().submit(() -> quitter.obtainFair(key).tryLock(Duration.ofMillis(300)))
			.get(10, TimeUnit.SECONDS)).isFalse();
		held.unlock();
		// The quitter's place is gone: the next caller gets the free lock at once.
		DistLock lock = next.obtainFair(key);
		assertThat(lock.tryLock()).isTrue();
		lock.unlock();
	}

}

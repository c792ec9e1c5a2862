package io.distlock.test.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.distlock.core.DistLock;
import io.distlock.core.LockLease;
import io.distlock.engine.AbstractLockRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Multi-locks: all keys or none, a key lost while waiting for the next is taken again, and
 * opposite orders never deadlock.
 */
interface MultiLockContract extends LockRegistryContract {

	@Test
	default void multiLockTakesAllKeysOrNone() throws Exception {
		AbstractLockRegistry registry = registry();
		AbstractLockRegistry other = registry();
		String a = randomKey();
		String b = randomKey();
		DistLock both = registry.obtainMulti(b, a, b);
		both.lock();
		assertThat(isHeldInStore(registry, a)).isTrue();
		assertThat(isHeldInStore(registry, b)).isTrue();
		assertThat(other.tryAcquire(a, Duration.ZERO)).isEmpty();
		both.unlock();
		assertThat(isHeldInStore(registry, a)).isFalse();
		try (LockLease blocker = other.acquire(b, Duration.ZERO)) {
			assertThat(both.tryLock(Duration.ofMillis(100))).isFalse();
			// All or nothing: the first key was given back when the second was not acquired.
			assertThat(isHeldInStore(registry, a)).isFalse();
		}
		assertThat(registry.localKeyCount()).isZero();
	}

	@Test
	default void aMultiLockWhoseFirstKeyIsLostWhileItWaitsForTheNextTakesItAgain() throws Exception {
		AbstractLockRegistry registry = registry(Duration.ofMillis(900));
		AbstractLockRegistry other = registry();
		String first = "a:" + randomKey();
		String second = "b:" + randomKey();
		LockLease blocker = other.acquire(second, Duration.ZERO);
		Future<Boolean> locked = executor().submit(() -> {
			DistLock both = registry.obtainMulti(first, second);
			if (!both.tryLock(Duration.ofSeconds(10))) {
				return false;
			}
			try {
				// Entered only with every key valid, the first one taken again after its loss.
				return both.isHeldByCurrentThread() && isHeldInStore(registry, first)
						&& registry.obtain(first).lease().isValid();
			}
			finally {
				both.unlock();
			}
		});
		await().atMost(Duration.ofSeconds(5)).until(() -> isHeldInStore(registry, first));
		long lostBefore = registry.getLossStatistics().lostCount();
		loseInStore(registry, first);
		await().atMost(Duration.ofSeconds(5)).until(() -> registry.getLossStatistics().lostCount() > lostBefore);
		// Free the key again (a store that stood in another holder to cause the loss lets it go).
		deleteInStore(registry, first);
		blocker.release();
		assertThat(locked.get(15, TimeUnit.SECONDS)).isTrue();
		assertThat(registry.localKeyCount()).isZero();
	}

	@Test
	default void multiLocksInOppositeOrdersNeverDeadlock() throws Exception {
		AbstractLockRegistry first = registry();
		AbstractLockRegistry second = registry();
		String a = randomKey();
		String b = randomKey();
		List<Future<?>> workers = new ArrayList<>();
		for (int t = 0; t < 2; t++) {
			DistLock lock = (t == 0) ? first.obtainMulti(a, b) : second.obtainMulti(b, a);
			workers.add(executor().submit(() -> {
				for (int i = 0; i < 20; i++) {
					assertThat(lock.tryLock(Duration.ofSeconds(10))).isTrue();
					lock.unlock();
				}
				return null;
			}));
		}
		for (Future<?> worker : workers) {
			worker.get(30, TimeUnit.SECONDS);
		}
	}

}

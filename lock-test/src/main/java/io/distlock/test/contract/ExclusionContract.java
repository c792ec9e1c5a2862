package io.distlock.test.contract;

import java.time.Duration;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.distlock.core.DistLock;
import io.distlock.core.LockAcquisitionException;
import io.distlock.core.LockLease;
import io.distlock.engine.AbstractLockRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Exclusion: a held key is refused to every other process and thread, a waiter gets it soon after
 * the release and gives up at its wait time, and local state goes with the last holder.
 */
interface ExclusionContract extends LockRegistryContract {

	@Test
	default void acquireHoldsTheKeyAndReleaseFreesIt() {
		AbstractLockRegistry registry = registry();
		String key = randomKey();
		LockLease lease = registry.acquire(key, Duration.ZERO);
		assertThat(lease.isValid()).isTrue();
		assertThat(lease.key()).isEqualTo(key);
		assertThat(isHeldInStore(registry, key)).isTrue();
		lease.release();
		assertThat(lease.isValid()).isFalse();
		assertThat(isHeldInStore(registry, key)).isFalse();
		assertThat(registry.localKeyCount()).isZero();
	}

	@Test
	default void anotherProcessCannotAcquireAHeldKey() {
		AbstractLockRegistry first = registry();
		AbstractLockRegistry second = registry();
		String key = randomKey();
		try (LockLease lease = first.acquire(key, Duration.ZERO)) {
			assertThat(second.tryAcquire(key, Duration.ZERO)).isEmpty();
			assertThat(second.tryAcquire(key, Duration.ofMillis(200))).isEmpty();
		}
		assertThat(second.tryAcquire(key, Duration.ZERO)).hasValueSatisfying(LockLease::release);
	}

	@Test
	default void anotherThreadCannotAcquireAHeldKey() throws Exception {
		AbstractLockRegistry registry = registry();
		String key = randomKey();
		DistLock lock = registry.obtain(key);
		lock.lock();
		try {
			assertThat(executor().submit(() -> registry.obtain(key).tryLock(Duration.ofMillis(100))).get())
				.isFalse();
		}
		finally {
			lock.unlock();
		}
		assertThat(executor().submit(() -> {
			DistLock other = registry.obtain(key);
			boolean locked = other.tryLock();
			other.unlock();
			return locked;
		}).get()).isTrue();
	}

	@Test
	default void acquireThrowsWhenTheWaitTimePasses() {
		AbstractLockRegistry first = registry();
		AbstractLockRegistry second = registry();
		String key = randomKey();
		try (LockLease lease = first.acquire(key, Duration.ZERO)) {
			assertThatExceptionOfType(LockAcquisitionException.class)
				.isThrownBy(() -> second.acquire(key, Duration.ofMillis(50)))
				.withMessage("Could not acquire lock for key '" + key + "' within 50ms");
		}
	}

	@Test
	default void tryLockReturnsWithinItsWaitTimeWithAWideMargin() throws Exception {
		AbstractLockRegistry first = registry();
		AbstractLockRegistry second = registry();
		String key = randomKey();
		try (LockLease lease = first.acquire(key, Duration.ZERO)) {
			long start = System.nanoTime();
			assertThat(second.obtain(key).tryLock(Duration.ofSeconds(1))).isFalse();
			long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
			assertThat(elapsedMillis).isBetween(1000L, 1500L);
		}
	}

	@Test
	default void waiterAcquiresSoonAfterTheHolderReleases() throws Exception {
		AbstractLockRegistry first = registry();
		AbstractLockRegistry second = registry();
		String key = randomKey();
		LockLease lease = first.acquire(key, Duration.ZERO);
		Future<Long> waiter = executor().submit(() -> {
			try (LockLease next = second.acquire(key, Duration.ofSeconds(10))) {
				return System.nanoTime();
			}
		});
		Thread.sleep(300);
		long releasedAt = System.nanoTime();
		lease.release();
		long acquiredAt = waiter.get(10, TimeUnit.SECONDS);
		// Far less than the 10 s wait: the waiter is woken, not timed out.
		assertThat(TimeUnit.NANOSECONDS.toMillis(acquiredAt - releasedAt)).isLessThan(2000);
	}

	@Test
	default void manyDistinctKeysLeaveNoLocalState() {
		AbstractLockRegistry registry = registry();
		for (int i = 0; i < 2_000; i++) {
			DistLock lock = registry.obtain(randomKey());
			lock.lock();
			lock.unlock();
		}
		assertThat(registry.localKeyCount()).isZero();
		assertThat(registry.heldLeases()).isEmpty();
	}

}

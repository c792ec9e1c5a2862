package io.distlock.test.contract;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import io.distlock.core.DistLock;
import io.distlock.core.LockLease;
import io.distlock.core.LockLostException;
import io.distlock.core.LockRequest;
import io.distlock.engine.AbstractLockRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * How long a grant lasts: the watchdog keeps a short lease alive while held, a fixed lease runs
 * out unless extended, and {@code extend}/{@code extendAsync} move a fixed lease or refuse.
 */
interface LeaseTimeContract extends LockRegistryContract {

	@Test
	default void watchdogKeepsAShortLeaseAliveWhileHeld() throws Exception {
		AbstractLockRegistry holder = registry(Duration.ofMillis(600));
		AbstractLockRegistry competitor = registry();
		String key = randomKey();
		AtomicInteger lost = new AtomicInteger();
		try (LockLease lease = holder.acquire(key, Duration.ZERO)) {
			lease.onLost((ex) -> lost.incrementAndGet());
			long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
			int attempts = 0;
			while (System.nanoTime() < until) {
				assertThat(competitor.tryAcquire(key, Duration.ZERO)).isEmpty();
				attempts++;
				Thread.sleep(50);
			}
			assertThat(attempts).isGreaterThan(30);
			assertThat(lease.isValid()).isTrue();
		}
		assertThat(lost).hasValue(0);
	}

	@Test
	default void theShortestLeaseIsGrantedOnAFreeKey() {
		AbstractLockRegistry registry = registry();
		for (int i = 0; i < 20; i++) {
			String key = randomKey();
			// A late reply is given back and retried within the wait, never granted with no validity.
			LockLease lease = registry
				.acquire(LockRequest.of(key).leaseTime(LockRequest.MIN_LEASE_TIME).waitTime(Duration.ofSeconds(5)));
			assertThat(lease.fencingToken()).isPositive();
			try {
				lease.release();
			}
			catch (LockLostException ex) {
				// A 10ms lease may run out before it is released; that is what it is for.
			}
		}
		assertThat(registry.localKeyCount()).isZero();
	}

	@Test
	default void extendMovesAFixedLeaseAndItsValidity() throws Exception {
		AbstractLockRegistry registry = registry();
		AbstractLockRegistry other = registry();
		String key = randomKey();
		AtomicInteger lost = new AtomicInteger();
		LockLease lease = registry.acquire(LockRequest.of(key).leaseTime(Duration.ofMillis(300)));
		lease.onLost((ex) -> lost.incrementAndGet());
		assertThat(lease.extend(Duration.ofSeconds(3))).isTrue();
		assertThat(lease.remaining()).isGreaterThan(Duration.ofSeconds(2));
		Thread.sleep(600);
		assertThat(lease.isValid()).as("valid past the original 300ms lease").isTrue();
		assertThat(other.tryAcquire(key, Duration.ZERO)).isEmpty();
		assertThat(lease.extend(Duration.ofMillis(200))).as("shortening is allowed").isTrue();
		await().atMost(Duration.ofSeconds(3)).until(() -> lost.get() == 1);
		assertThat(other.tryAcquire(key, Duration.ofSeconds(2))).hasValueSatisfying(LockLease::release);
		assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> lease.extend(Duration.ofSeconds(1)));
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lease::release);
		assertThat(lost).hasValue(1);
	}

	@Test
	default void extendOfAKeyDeletedBehindTheHolderReturnsFalseAndSignalsTheLoss() {
		AbstractLockRegistry registry = registry();
		String key = randomKey();
		AtomicInteger lost = new AtomicInteger();
		LockLease lease = registry.acquire(LockRequest.of(key).leaseTime(Duration.ofSeconds(10)));
		lease.onLost((ex) -> lost.incrementAndGet());
		loseInStore(registry, key);
		boolean heldByAnotherOwner = isHeldInStore(registry, key);
		assertThat(lease.extend(Duration.ofSeconds(10))).isFalse();
		// onLost callbacks run on the lease's executor: told, though not before extend returns.
		await().atMost(Duration.ofSeconds(5)).until(() -> lost.get() == 1);
		assertThat(lease.isValid()).isFalse();
		assertThat(isHeldInStore(registry, key)).as("a refused extension neither re-creates nor takes the key")
			.isEqualTo(heldByAnotherOwner);
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lease::release);
	}

	@Test
	default void extendIsRefusedForReleasedAndWatchdogLeasesAndForTooShortLeases() {
		AbstractLockRegistry registry = registry();
		String key = randomKey();
		LockLease fixed = registry.acquire(LockRequest.of(key).leaseTime(Duration.ofSeconds(5)));
		assertThatIllegalArgumentException().isThrownBy(() -> fixed.extend(Duration.ofMillis(5)))
			.withMessageContaining("at least 10ms");
		fixed.release();
		assertThatIllegalStateException().isThrownBy(() -> fixed.extend(Duration.ofSeconds(5)))
			.withMessageContaining("released");
		try (LockLease renewed = registry.acquire(key, Duration.ZERO)) {
			assertThatIllegalStateException().isThrownBy(() -> renewed.extend(Duration.ofSeconds(5)))
				.withMessageContaining("watchdog");
		}
	}

	@Test
	default void extendAsyncMovesAFixedLeaseWithoutWaitingAndFailsAsExtendThrows() throws Exception {
		AbstractLockRegistry registry = registry();
		AbstractLockRegistry other = registry();
		String key = randomKey();
		AtomicInteger lost = new AtomicInteger();
		LockLease lease = registry
			.acquireAsync(LockRequest.of(key).waitTime(Duration.ofSeconds(2)).leaseTime(Duration.ofMillis(300)))
			.toCompletableFuture()
			.get(5, TimeUnit.SECONDS);
		lease.onLost((ex) -> lost.incrementAndGet());
		assertThat(lease.extendAsync(Duration.ofSeconds(10)).get(5, TimeUnit.SECONDS)).isTrue();
		assertThat(lease.remaining()).isGreaterThan(Duration.ofSeconds(5));
		assertThat(other.tryAcquire(key, Duration.ZERO)).isEmpty();
		assertThat(lease.extendAsync(Duration.ofMillis(5))).failsWithin(Duration.ofSeconds(5))
			.withThrowableOfType(ExecutionException.class)
			.withCauseInstanceOf(IllegalArgumentException.class);
		loseInStore(registry, key);
		assertThat(lease.extendAsync(Duration.ofSeconds(10)).get(5, TimeUnit.SECONDS))
			.as("refused once the store no longer holds it").isFalse();
		await().atMost(Duration.ofSeconds(5)).until(() -> lost.get() == 1);
		assertThat(lease.extendAsync(Duration.ofSeconds(10))).failsWithin(Duration.ofSeconds(5))
			.withThrowableOfType(ExecutionException.class)
			.withCauseInstanceOf(LockLostException.class);
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lease::release);
		assertThat(lease.extendAsync(Duration.ofSeconds(10))).failsWithin(Duration.ofSeconds(5))
			.withThrowableOfType(ExecutionException.class)
			.withCauseInstanceOf(IllegalStateException.class);
		deleteInStore(registry, key);
		try (LockLease renewed = registry.acquire(key, Duration.ofSeconds(2))) {
			assertThat(renewed.extendAsync(Duration.ofSeconds(5))).failsWithin(Duration.ofSeconds(5))
				.withThrowableOfType(ExecutionException.class)
				.havingCause()
				.isInstanceOf(IllegalStateException.class)
				.withMessageContaining("watchdog");
		}
	}

	@Test
	default void aLockTakenWithAFixedLeaseRunsOutUnlessExtended() throws Exception {
		AbstractLockRegistry registry = registry();
		AbstractLockRegistry other = registry();
		String key = randomKey();
		DistLock lock = registry.obtain(key);
		assertThat(lock.tryLock(Duration.ofSeconds(2), Duration.ofMillis(300))).isTrue();
		assertThat(lock.lease().remaining()).isLessThanOrEqualTo(Duration.ofMillis(300));
		AtomicInteger lost = new AtomicInteger();
		lock.lease().onLost((ex) -> lost.incrementAndGet());
		assertThat(other.tryAcquire(key, Duration.ZERO)).isEmpty();
		assertThat(lock.lease().extend(Duration.ofMillis(400))).as("a fixed lease extends").isTrue();
		await().atMost(Duration.ofSeconds(5)).until(() -> lost.get() == 1);
		assertThat(other.tryAcquire(key, Duration.ofSeconds(2))).hasValueSatisfying(LockLease::release);
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::unlock);
		assertThatIllegalArgumentException().isThrownBy(() -> lock.tryLock(Duration.ZERO, Duration.ofMillis(5)))
			.withMessageContaining("leaseTime");
		assertThatExceptionOfType(NullPointerException.class).isThrownBy(() -> lock.tryLock(Duration.ZERO, null))
			.withMessageContaining("leaseTime");
		DistLock both = registry.obtainMulti(key, randomKey());
		assertThat(both.tryLock(Duration.ofSeconds(2), Duration.ofMillis(300))).isTrue();
		assertThat(both.lease().extend(Duration.ofMillis(300))).as("the last key's lease is fixed too").isTrue();
		await().atMost(Duration.ofSeconds(5)).until(() -> !both.isHeldByCurrentThread());
		assertThat(other.tryAcquire(key, Duration.ofSeconds(2))).hasValueSatisfying(LockLease::release);
		assertThatExceptionOfType(LockLostException.class).isThrownBy(both::unlock);
		assertThat(registry.localKeyCount()).isZero();
	}

}

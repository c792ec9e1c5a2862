package io.distlock.test.contract;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
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
import static org.awaitility.Awaitility.await;

/**
 * A lease that runs out or vanishes from the store is signalled lost once, a stale release never
 * deletes the successor's grant, {@code confirm} sees a loss the holder has not noticed yet, and a
 * lost lock is not re-entered.
 */
interface LostLeaseContract extends LockRegistryContract {

	@Test
	default void staleUnlockAfterExpiryNeverDeletesTheSuccessorsLock() throws Exception {
		AbstractLockRegistry first = registry();
		AbstractLockRegistry second = registry();
		String key = randomKey();
		LockLease stale = first.acquire(LockRequest.of(key).leaseTime(Duration.ofMillis(300)));
		LockLease successor = second.acquire(key, Duration.ofSeconds(5));
		assertThat(successor.fencingToken()).isGreaterThan(stale.fencingToken());
		assertThatExceptionOfType(LockLostException.class).isThrownBy(stale::release)
			.withMessageContaining("key '" + key + "'")
			.withMessageContaining("may have been changed concurrently");
		assertThat(isHeldInStore(second, key)).isTrue();
		assertThat(first.tryAcquire(key, Duration.ZERO)).isEmpty();
		successor.release();
		assertThat(isHeldInStore(second, key)).isFalse();
	}

	@Test
	default void fixedLeaseThatRunsOutWhileHeldIsSignalledLostOnce() throws Exception {
		AbstractLockRegistry registry = registry();
		String key = randomKey();
		AtomicInteger lostCalls = new AtomicInteger();
		LockLease lease = registry.acquire(LockRequest.of(key).leaseTime(Duration.ofMillis(300)));
		lease.onLost((lost) -> lostCalls.incrementAndGet());
		await().atMost(Duration.ofSeconds(2)).until(() -> lostCalls.get() == 1);
		assertThat(lease.isValid()).isFalse();
		assertThat(lease.remaining()).isZero();
		Thread.sleep(200);
		assertThat(lostCalls).hasValue(1);
		AtomicInteger lateCallback = new AtomicInteger();
		lease.onLost((lost) -> lateCallback.incrementAndGet());
		assertThat(lateCallback).hasValue(1);
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lease::release);
		assertThat(registry.localKeyCount()).isZero();
	}

	@Test
	default void deletingTheKeyBehindTheHolderSignalsLostWithinOneRenewalInterval() throws Exception {
		Duration lease = Duration.ofMillis(900);
		AbstractLockRegistry registry = registry(lease);
		String key = randomKey();
		CompletableFuture<Long> lostAt = new CompletableFuture<>();
		DistLock lock = registry.obtain(key);
		lock.lock();
		lock.lease().onLost((ex) -> lostAt.complete(System.nanoTime()));
		long deletedAt = System.nanoTime();
		loseInStore(registry, key);
		long detectedNanos = lostAt.get(5, TimeUnit.SECONDS) - deletedAt;
		Duration renewalInterval = registry.getSettings().renewalInterval();
		assertThat(Duration.ofNanos(detectedNanos)).isLessThanOrEqualTo(renewalInterval.plusMillis(250));
		assertThat(lock.isHeldByCurrentThread()).isFalse();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::unlock);
		assertThat(registry.localKeyCount()).isZero();
	}

	@Test
	default void confirmReportsALossTheHolderHasNotNoticedYet() {
		// A 30 s lease renews every 10 s: the deleted key stays unnoticed locally for this test.
		AbstractLockRegistry registry = registry(Duration.ofSeconds(30));
		String key = randomKey();
		AtomicInteger lostCalls = new AtomicInteger();
		LockLease lease = registry.acquire(key, Duration.ZERO);
		lease.onLost((lost) -> lostCalls.incrementAndGet());
		assertThat(lease.confirm()).as("confirm while the store holds the grant").isTrue();
		assertThat(lease.isValid()).isTrue();
		deleteInStore(registry, key);
		assertThat(lease.isValid()).as("the loss is not known locally before confirm()").isTrue();
		assertThat(lostCalls).hasValue(0);
		assertThat(lease.confirm()).as("confirm after the grant vanished from the store").isFalse();
		assertThat(lease.isValid()).isFalse();
		assertThat(lostCalls).as("the loss is declared at once, by confirm() itself").hasValue(1);
		assertThat(lease.confirm()).isFalse();
		assertThat(lostCalls).as("and only once").hasValue(1);
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lease::release);
		assertThat(registry.localKeyCount()).isZero();
	}

	@Test
	default void reenteringALostLockThrows() throws Exception {
		AbstractLockRegistry registry = registry(Duration.ofMillis(600));
		String key = randomKey();
		DistLock lock = registry.obtain(key);
		lock.lock();
		CountDownLatch lost = new CountDownLatch(1);
		lock.lease().onLost((ex) -> lost.countDown());
		loseInStore(registry, key);
		assertThat(lost.await(5, TimeUnit.SECONDS)).isTrue();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::lock);
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::unlock);
		assertThat(registry.localKeyCount()).isZero();
	}

}

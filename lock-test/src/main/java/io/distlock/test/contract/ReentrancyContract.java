package io.distlock.test.contract;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;

import io.distlock.core.DistLock;
import io.distlock.core.LockContext;
import io.distlock.core.LockLease;
import io.distlock.core.LockLostException;
import io.distlock.core.LockRequest;
import io.distlock.engine.AbstractLockRegistry;

import static io.distlock.test.contract.ContractSteps.onNewThread;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A lock belongs to its thread: it is re-entered without another grant, only its thread unlocks
 * it, {@code LockContext} shows the innermost hold, views of one lock are one lock, and a thread
 * of the same registry takes over once the holder's fixed lease ran out or was lost.
 */
interface ReentrancyContract extends LockRegistryContract {

	@Test
	default void reentrancyThreeDeepNeedsThreeUnlocks() throws Exception {
		AbstractLockRegistry registry = registry();
		AbstractLockRegistry other = registry();
		String key = randomKey();
		DistLock lock = registry.obtain(key);
		lock.lock();
		long token = lock.lease().fencingToken();
		lock.lock();
		registry.obtain(key).lock();
		assertThat(lock.lease().fencingToken()).isEqualTo(token);
		lock.unlock();
		lock.unlock();
		assertThat(lock.isHeldByCurrentThread()).isTrue();
		assertThat(other.tryAcquire(key, Duration.ZERO)).isEmpty();
		lock.unlock();
		assertThat(lock.isHeldByCurrentThread()).isFalse();
		assertThat(isHeldInStore(registry, key)).isFalse();
		assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock::unlock);
		assertThat(registry.localKeyCount()).isZero();
	}

	@Test
	default void unlockByAnotherThreadThrowsAndKeepsTheLock() throws Exception {
		AbstractLockRegistry registry = registry();
		String key = randomKey();
		DistLock lock = registry.obtain(key);
		lock.lock();
		try {
			Future<?> wrongThread = executor().submit(() -> registry.obtain(key).unlock());
			assertThatExceptionOfType(java.util.concurrent.ExecutionException.class)
				.isThrownBy(() -> wrongThread.get(5, TimeUnit.SECONDS))
				.withCauseInstanceOf(IllegalMonitorStateException.class);
			assertThat(lock.isHeldByCurrentThread()).isTrue();
			assertThat(isHeldInStore(registry, key)).isTrue();
		}
		finally {
			lock.unlock();
		}
	}

	@Test
	default void lockContextTracksTheInnermostHold() {
		AbstractLockRegistry registry = registry();
		DistLock outer = registry.obtain(randomKey());
		DistLock inner = registry.obtain(randomKey());
		outer.lock();
		inner.lock();
		assertThat(LockContext.current().key()).isEqualTo(inner.key());
		inner.unlock();
		assertThat(LockContext.current().key()).isEqualTo(outer.key());
		outer.unlock();
		assertThat(LockContext.find()).isEmpty();
	}

	@Test
	default void aReentryWithALeaseJoinsTheOuterHoldAndItsLease() throws Exception {
		AbstractLockRegistry registry = registry();
		String key = randomKey();
		DistLock lock = registry.obtain(key);
		lock.lock();
		assertThat(lock.tryLock(Duration.ZERO, Duration.ofMillis(300))).isTrue();
		assertThatIllegalStateException().isThrownBy(() -> lock.lease().extend(Duration.ofSeconds(5)))
			.as("the re-entered hold is renewed by the watchdog, as the outer one")
			.withMessageContaining("watchdog");
		lock.unlock();
		lock.unlock();
		assertThat(registry.localKeyCount()).isZero();
	}

	@Test
	default void viewsOfTheSameLockAreEqualAndInterchangeable() {
		assumeTrue(offersFairAndReadWriteLocks(), "fair and read/write locks are not offered");
		AbstractLockRegistry registry = registry();
		AbstractLockRegistry other = registry();
		String key = randomKey();
		DistLock first = registry.obtain(key);
		DistLock second = registry.obtain(key);
		assertThat(first).isEqualTo(second).hasSameHashCodeAs(second).isNotSameAs(second);
		assertThat(first).isNotEqualTo(registry.obtain(randomKey()))
			.isNotEqualTo(other.obtain(key))
			.isNotEqualTo(registry.obtainFair(key))
			.isNotEqualTo(registry.obtainReadWrite(key).writeLock());
		assertThat(registry.obtainReadWrite(key).readLock()).isEqualTo(registry.obtainReadWrite(key).readLock());
		assertThat(registry.obtainMulti("a" + key, "b" + key)).isEqualTo(registry.obtainMulti("b" + key, "a" + key));
		first.lock();
		assertThat(second.isHeldByCurrentThread()).isTrue();
		second.unlock();
		assertThat(first.isHeldByCurrentThread()).isFalse();
		assertThat(registry.localKeyCount()).isZero();
	}

	@Test
	default void anExpiredFixedLeaseNeverReleasedNoLongerBlocksAnotherThreadOfTheSameRegistry() throws Exception {
		AbstractLockRegistry registry = registry();
		AbstractLockRegistry other = registry();
		String key = randomKey();
		CountDownLatch lost = new CountDownLatch(1);
		LockLease stale = registry.acquire(LockRequest.of(key).leaseTime(Duration.ofMillis(200)));
		stale.onLost((ex) -> lost.countDown());
		assertThat(lost.await(5, TimeUnit.SECONDS)).isTrue();
		// The holder counts its lease lost a drift margin before the store drops the key.
		await().atMost(Duration.ofSeconds(5)).until(() -> !isHeldInStore(registry, key));
		LockLease successor = executor().submit(() -> registry.tryAcquire(key, Duration.ZERO)).get()
			.orElseThrow(() -> new AssertionError("the same registry still refused the key after its lease expired"));
		assertThat(successor.fencingToken()).isGreaterThan(stale.fencingToken());
		assertThatExceptionOfType(LockLostException.class).isThrownBy(stale::release);
		assertThat(successor.isValid()).isTrue();
		assertThat(successor.confirm()).as("the stale release left the successor's grant alone").isTrue();
		assertThat(isHeldInStore(registry, key)).isTrue();
		assertThat(other.tryAcquire(key, Duration.ZERO)).as("the successor still excludes other processes")
			.isEmpty();
		assertThat(onNewThread(() -> registry.tryAcquire(key, Duration.ZERO)))
			.as("and other threads of its own process").isEmpty();
		successor.release();
		assertThat(isHeldInStore(registry, key)).isFalse();
		assertThat(registry.localKeyCount()).isZero();
	}

	@Test
	default void aStaleReleaseLeavesTheReentrantHoldOfTheSuccessorThreadAlone() throws Exception {
		AbstractLockRegistry registry = registry();
		String key = randomKey();
		CountDownLatch lost = new CountDownLatch(1);
		// A wait, so that a cold first call slower than the 200ms lease is retried, not refused.
		LockLease stale = registry
			.acquire(LockRequest.of(key).leaseTime(Duration.ofMillis(200)).waitTime(Duration.ofSeconds(5)));
		stale.onLost((ex) -> lost.countDown());
		assertThat(lost.await(5, TimeUnit.SECONDS)).isTrue();
		await().atMost(Duration.ofSeconds(5)).until(() -> !isHeldInStore(registry, key));
		ExecutorService successorThread = Executors.newSingleThreadExecutor();
		try {
			DistLock lock = registry.obtain(key);
			// The successor takes the key with no wait, twice (re-entered), on a thread of its own.
			assertThat(successorThread.submit(() -> lock.tryLock() && lock.tryLock()).get(10, TimeUnit.SECONDS))
				.isTrue();
			assertThatExceptionOfType(LockLostException.class).isThrownBy(stale::release);
			assertThat(successorThread.submit(lock::isHeldByCurrentThread).get(10, TimeUnit.SECONDS))
				.as("the successor still holds after the stale release").isTrue();
			assertThat(onNewThread(() -> registry.tryAcquire(key, Duration.ZERO))).as("and excludes other threads")
				.isEmpty();
			successorThread.submit(lock::unlock).get(10, TimeUnit.SECONDS);
			assertThat(isHeldInStore(registry, key)).as("one unlock of two: still held").isTrue();
			assertThat(successorThread.submit(lock::isHeldByCurrentThread).get(10, TimeUnit.SECONDS)).isTrue();
			successorThread.submit(lock::unlock).get(10, TimeUnit.SECONDS);
			assertThat(isHeldInStore(registry, key)).isFalse();
		}
		finally {
			successorThread.shutdownNow();
		}
		assertThat(registry.localKeyCount()).isZero();
	}

	@Test
	default void aWaiterOfTheSameRegistryIsGrantedWhenTheHoldersFixedLeaseExpires() throws Exception {
		AbstractLockRegistry registry = registry();
		String key = randomKey();
		CountDownLatch lost = new CountDownLatch(1);
		LockLease stale = registry.acquire(LockRequest.of(key).leaseTime(Duration.ofMillis(300)));
		stale.onLost((ex) -> lost.countDown());
		AtomicBoolean staleValidAtGrant = new AtomicBoolean(true);
		Future<LockLease> waiter = executor().submit(() -> {
			LockLease lease = registry.acquire(key, Duration.ofSeconds(20));
			staleValidAtGrant.set(stale.isValid());
			return lease;
		});
		// Granted after the expiry, long before its own wait time: it does not queue behind the
		// stale holder, which never releases.
		LockLease granted = waiter.get(10, TimeUnit.SECONDS);
		// The loss is declared before the gate passes on; its callbacks run off the engine's
		// threads (where user code may), so they may run just after the grant.
		assertThat(staleValidAtGrant).as("the stale lease reads invalid once another hold is granted").isFalse();
		assertThat(lost.await(5, TimeUnit.SECONDS)).as("the stale holder is told").isTrue();
		assertThat(granted.fencingToken()).isGreaterThan(stale.fencingToken());
		granted.release();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(stale::release);
		assertThat(registry.localKeyCount()).isZero();
	}

	@Test
	default void aLostThreadHoldIsNeitherReenteredNorReplacedByTryLock() throws Exception {
		AbstractLockRegistry registry = registry(Duration.ofMillis(600));
		String key = randomKey();
		DistLock lock = registry.obtain(key);
		assertThat(lock.tryLock()).isTrue();
		CountDownLatch lost = new CountDownLatch(1);
		lock.lease().onLost((ex) -> lost.countDown());
		loseInStore(registry, key);
		assertThat(lost.await(5, TimeUnit.SECONDS)).isTrue();
		// Whatever took the key from the holder (another owner, for Redlock) lets go of it: the
		// key is free, and still the thread's own lost hold keeps the lock from it.
		deleteInStore(registry, key);
		assertThat(lock.tryLock()).as("tryLock() over the thread's own lost hold").isFalse();
		long start = System.nanoTime();
		assertThat(lock.tryLock(Duration.ofSeconds(30))).as("tryLock(wait) over it").isFalse();
		// Answered at once, not at the end of the wait; the bound only says it did not wait 30 s.
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
		assertThat(isHeldInStore(registry, key)).as("no fresh grant taken underneath the lost hold").isFalse();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::lock);
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::lockInterruptibly);
		assertThat(anotherThreadGets(() -> registry.obtain(key)))
			.as("another thread of the process takes the key at once").isTrue();
		// One unlock() for the one hold: the refused calls left nothing to unlock.
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::unlock);
		assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock::unlock);
		assertThat(lock.tryLock()).as("after unlocking the lost hold, the thread locks afresh").isTrue();
		assertThat(isHeldInStore(registry, key)).isTrue();
		lock.unlock();
		assertThat(registry.localKeyCount()).isZero();
	}

}

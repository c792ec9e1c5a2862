package io.distlock.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.distlock.core.DistLock;
import io.distlock.core.LockAcquisitionException;
import io.distlock.core.LockContext;
import io.distlock.core.LockLease;
import io.distlock.core.LockLostException;
import io.distlock.core.LockRequest;
import io.distlock.engine.AbstractLockRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.awaitility.Awaitility.await;

/**
 * The behaviour every registry promises, in the style of ShedLock's provider suite. A subclass
 * supplies registries that share one store (two registries are two processes) and a way to
 * delete a key behind the holder's back.
 */
@Timeout(60)
public abstract class AbstractLockRegistryContractTests {

	private final List<AbstractLockRegistry> registries = new ArrayList<>();

	private final ExecutorService executor = Executors.newCachedThreadPool();

	/**
	 * Create a registry on the shared store.
	 * @param leaseTime the lease of watchdog-renewed grants
	 */
	protected abstract AbstractLockRegistry createRegistry(Duration leaseTime);

	/**
	 * Delete the key's grant in the store, as an operator would.
	 */
	protected abstract void deleteInStore(AbstractLockRegistry registry, String key);

	/**
	 * Make the holder's grant of the key vanish from the store so that its next renewal is
	 * refused: by default an operator's delete. A store whose renewal re-creates a missing key
	 * (Redlock) overrides it.
	 */
	protected void loseInStore(AbstractLockRegistry registry, String key) {
		deleteInStore(registry, key);
	}

	/**
	 * Return whether some grant holds the key in the store.
	 */
	protected abstract boolean isHeldInStore(AbstractLockRegistry registry, String key);

	/**
	 * Return whether the registry offers fair and read/write locks ({@code RedlockRegistry}
	 * refuses both); the tests of those locks are skipped when it does not.
	 */
	protected boolean offersFairAndReadWriteLocks() {
		return true;
	}

	protected final AbstractLockRegistry registry(Duration leaseTime) {
		AbstractLockRegistry registry = createRegistry(leaseTime);
		this.registries.add(registry);
		return registry;
	}

	protected final AbstractLockRegistry registry() {
		return registry(Duration.ofSeconds(30));
	}

	protected static String randomKey() {
		return "contract:" + UUID.randomUUID();
	}

	@AfterEach
	void closeRegistries() {
		this.executor.shutdownNow();
		this.registries.forEach(AbstractLockRegistry::close);
	}

	@Test
	void acquireHoldsTheKeyAndReleaseFreesIt() {
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
	void anotherProcessCannotAcquireAHeldKey() {
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
	void anotherThreadCannotAcquireAHeldKey() throws Exception {
		AbstractLockRegistry registry = registry();
		String key = randomKey();
		DistLock lock = registry.obtain(key);
		lock.lock();
		try {
			assertThat(this.executor.submit(() -> registry.obtain(key).tryLock(Duration.ofMillis(100))).get())
				.isFalse();
		}
		finally {
			lock.unlock();
		}
		assertThat(this.executor.submit(() -> {
			DistLock other = registry.obtain(key);
			boolean locked = other.tryLock();
			other.unlock();
			return locked;
		}).get()).isTrue();
	}

	@Test
	void acquireThrowsWhenTheWaitTimePasses() {
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
	void tryLockReturnsWithinItsWaitTimeWithAWideMargin() throws Exception {
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
	void waiterAcquiresSoonAfterTheHolderReleases() throws Exception {
		AbstractLockRegistry first = registry();
		AbstractLockRegistry second = registry();
		String key = randomKey();
		LockLease lease = first.acquire(key, Duration.ZERO);
		Future<Long> waiter = this.executor.submit(() -> {
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
	void reentrancyThreeDeepNeedsThreeUnlocks() throws Exception {
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
	void unlockByAnotherThreadThrowsAndKeepsTheLock() throws Exception {
		AbstractLockRegistry registry = registry();
		String key = randomKey();
		DistLock lock = registry.obtain(key);
		lock.lock();
		try {
			Future<?> wrongThread = this.executor.submit(() -> registry.obtain(key).unlock());
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
	void fencingTokensStrictlyIncreaseAcrossGrantsAndProcesses() {
		AbstractLockRegistry first = registry();
		AbstractLockRegistry second = registry();
		String key = randomKey();
		long previous = 0;
		for (int i = 0; i < 50; i++) {
			AbstractLockRegistry registry = (i % 2 == 0) ? first : second;
			try (LockLease lease = registry.acquire(key, Duration.ofSeconds(1))) {
				assertThat(lease.fencingToken()).isGreaterThan(previous);
				previous = lease.fencingToken();
			}
		}
	}

	@Test
	void fencingTokenStillGrowsAfterTheKeyIsDeleted() {
		AbstractLockRegistry registry = registry();
		String key = randomKey();
		LockLease first = registry.acquire(key, Duration.ZERO);
		deleteInStore(registry, key);
		assertThatExceptionOfType(LockLostException.class).isThrownBy(first::release);
		try (LockLease second = registry.acquire(key, Duration.ZERO)) {
			assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
		}
	}

	@Test
	void staleUnlockAfterExpiryNeverDeletesTheSuccessorsLock() throws Exception {
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
	void fixedLeaseThatRunsOutWhileHeldIsSignalledLostOnce() throws Exception {
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
	void watchdogKeepsAShortLeaseAliveWhileHeld() throws Exception {
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
	void deletingTheKeyBehindTheHolderSignalsLostWithinOneRenewalInterval() throws Exception {
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
	void confirmReportsALossTheHolderHasNotNoticedYet() {
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
	void reenteringALostLockThrows() throws Exception {
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

	@Test
	void executeLockedExposesTheLeaseAndReleasesAfterwards() {
		AbstractLockRegistry registry = registry();
		String key = randomKey();
		List<Long> tokens = new CopyOnWriteArrayList<>();
		String result = registry.executeLocked(key, Duration.ZERO, () -> {
			tokens.add(LockContext.current().fencingToken());
			assertThat(isHeldInStore(registry, key)).isTrue();
			return "done";
		});
		assertThat(result).isEqualTo("done");
		assertThat(tokens).hasSize(1).allSatisfy((token) -> assertThat(token).isPositive());
		assertThat(LockContext.find()).isEmpty();
		assertThat(isHeldInStore(registry, key)).isFalse();
	}

	@Test
	void executeLockedReleasesWhenTheTaskFailsAndKeepsItsException() {
		AbstractLockRegistry registry = registry();
		String key = randomKey();
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> registry.executeLocked(key, Duration.ZERO, () -> {
				throw new IllegalStateException("boom");
			}))
			.withMessage("boom");
		assertThat(isHeldInStore(registry, key)).isFalse();
		assertThatExceptionOfType(java.lang.reflect.UndeclaredThrowableException.class)
			.isThrownBy(() -> registry.executeLocked(key, Duration.ZERO, () -> {
				throw new java.io.IOException("checked");
			}))
			.withCauseInstanceOf(java.io.IOException.class);
		assertThat(registry.localKeyCount()).isZero();
	}

	@Test
	void lockContextTracksTheInnermostHold() {
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
	void aLeaseCanBeReleasedByAnotherThreadAndReleasingTwiceDoesNothing() throws Exception {
		AbstractLockRegistry registry = registry();
		String key = randomKey();
		LockLease lease = registry.acquire(key, Duration.ZERO);
		this.executor.submit(() -> lease.release()).get(5, TimeUnit.SECONDS);
		lease.release();
		assertThat(isHeldInStore(registry, key)).isFalse();
		Optional<LockLease> again = registry.tryAcquire(key, Duration.ZERO);
		assertThat(again).isPresent();
		again.get().release();
	}

	@Test
	void releaseWithHoldAtLeastKeepsTheKeyTakenUntilThen() throws Exception {
		AbstractLockRegistry first = registry();
		AbstractLockRegistry second = registry();
		String key = randomKey();
		long grantedAt = System.nanoTime();
		LockLease lease = first.acquire(LockRequest.of(key).name("nightly-report"));
		assertThat(lease.name()).isEqualTo("nightly-report");
		lease.release(Duration.ofMillis(800));
		assertThat(first.localKeyCount()).isZero();
		assertThat(second.tryAcquire(key, Duration.ZERO)).isEmpty();
		try (LockLease next = second.acquire(key, Duration.ofSeconds(5))) {
			assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - grantedAt)).isBetween(700L, 2_000L);
		}
	}

	@Test
	void releaseWithAHoldAtLeastAlreadyPassedFreesTheKeyAtOnce() throws Exception {
		AbstractLockRegistry registry = registry();
		String key = randomKey();
		LockLease lease = registry.acquire(key, Duration.ZERO);
		Thread.sleep(50);
		lease.release(Duration.ofMillis(10));
		assertThat(isHeldInStore(registry, key)).isFalse();
	}

	@Test
	void heldLocksDescribeWhatIsHeld() {
		AbstractLockRegistry registry = registry();
		String key = randomKey();
		try (LockLease lease = registry.acquire(LockRequest.of(key).name("reserve"))) {
			assertThat(registry.heldLocks()).singleElement().satisfies((held) -> {
				assertThat(held.name()).isEqualTo("reserve");
				assertThat(held.key()).isEqualTo(key);
				assertThat(held.fencingToken()).isEqualTo(lease.fencingToken());
				assertThat(held.remaining()).isPositive();
				assertThat(held.holds()).isEqualTo(1);
			});
		}
		assertThat(registry.heldLocks()).isEmpty();
	}

	@Test
	void fairLockGrantsWaitersInArrivalOrder() throws Exception {
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
			waiters.add(this.executor.submit(() -> {
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
	void aFairWaiterThatGivesUpLeavesTheQueue() throws Exception {
		assumeTrue(offersFairAndReadWriteLocks(), "fair and read/write locks are not offered");
		AbstractLockRegistry holder = registry();
		AbstractLockRegistry quitter = registry();
		AbstractLockRegistry next = registry();
		String key = randomKey();
		DistLock held = holder.obtainFair(key);
		held.lock();
		assertThat(this.executor.submit(() -> quitter.obtainFair(key).tryLock(Duration.ofMillis(300)))
			.get(10, TimeUnit.SECONDS)).isFalse();
		held.unlock();
		// The quitter's place is gone: the next caller gets the free lock at once.
		DistLock lock = next.obtainFair(key);
		assertThat(lock.tryLock()).isTrue();
		lock.unlock();
	}

	@Test
	void multiLockTakesAllKeysOrNone() throws Exception {
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
	void multiLocksInOppositeOrdersNeverDeadlock() throws Exception {
		AbstractLockRegistry first = registry();
		AbstractLockRegistry second = registry();
		String a = randomKey();
		String b = randomKey();
		List<Future<?>> workers = new ArrayList<>();
		for (int t = 0; t < 2; t++) {
			DistLock lock = (t == 0) ? first.obtainMulti(a, b) : second.obtainMulti(b, a);
			workers.add(this.executor.submit(() -> {
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

	@Test
	void readersShareAndAWriterExcludesThem() throws Exception {
		assumeTrue(offersFairAndReadWriteLocks(), "fair and read/write locks are not offered");
		AbstractLockRegistry first = registry();
		AbstractLockRegistry second = registry();
		String key = randomKey();
		DistLock read = first.obtainReadWrite(key).readLock();
		read.lock();
		assertThat(this.executor.submit(() -> tryAndUnlock(second.obtainReadWrite(key).readLock())).get())
			.as("a second reader").isTrue();
		assertThat(this.executor.submit(() -> tryAndUnlock(second.obtainReadWrite(key).writeLock())).get())
			.as("a writer while a reader holds").isFalse();
		read.unlock();
		DistLock write = first.obtainReadWrite(key).writeLock();
		write.lock();
		assertThat(this.executor.submit(() -> tryAndUnlock(second.obtainReadWrite(key).readLock())).get())
			.as("a reader while a writer holds").isFalse();
		assertThat(this.executor.submit(() -> tryAndUnlock(second.obtainReadWrite(key).writeLock())).get())
			.as("a second writer").isFalse();
		write.unlock();
		assertThat(this.executor.submit(() -> tryAndUnlock(second.obtainReadWrite(key).writeLock())).get())
			.as("a writer once everyone left").isTrue();
		assertThat(first.localKeyCount()).isZero();
	}

	@Test
	void aWaitingWriterHoldsBackNewReaders() throws Exception {
		assumeTrue(offersFairAndReadWriteLocks(), "fair and read/write locks are not offered");
		AbstractLockRegistry readers = registry();
		AbstractLockRegistry writers = registry();
		String key = randomKey();
		DistLock firstReader = readers.obtainReadWrite(key).readLock();
		firstReader.lock();
		Future<Boolean> writer = this.executor.submit(() -> {
			DistLock lock = writers.obtainReadWrite(key).writeLock();
			boolean locked = lock.tryLock(Duration.ofSeconds(10));
			if (locked) {
				lock.unlock();
			}
			return locked;
		});
		Thread.sleep(300);
		assertThat(this.executor.submit(() -> tryAndUnlock(registry().obtainReadWrite(key).readLock())).get())
			.as("a new reader while a writer waits").isFalse();
		firstReader.unlock();
		assertThat(writer.get(10, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void readLocksAreReentrantAndRenewed() throws Exception {
		assumeTrue(offersFairAndReadWriteLocks(), "fair and read/write locks are not offered");
		AbstractLockRegistry registry = registry(Duration.ofMillis(600));
		AbstractLockRegistry other = registry();
		String key = randomKey();
		DistLock read = registry.obtainReadWrite(key).readLock();
		read.lock();
		read.lock();
		Thread.sleep(1_500);
		assertThat(read.isHeldByCurrentThread()).isTrue();
		assertThat(this.executor.submit(() -> tryAndUnlock(other.obtainReadWrite(key).writeLock())).get()).isFalse();
		read.unlock();
		read.unlock();
		assertThat(this.executor.submit(() -> tryAndUnlock(other.obtainReadWrite(key).writeLock())).get()).isTrue();
	}

	private static boolean tryAndUnlock(DistLock lock) throws InterruptedException {
		if (lock.tryLock(Duration.ZERO)) {
			lock.unlock();
			return true;
		}
		return false;
	}

	@Test
	void manyDistinctKeysLeaveNoLocalState() {
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

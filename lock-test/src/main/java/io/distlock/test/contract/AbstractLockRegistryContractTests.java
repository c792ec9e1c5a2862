package io.distlock.test.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The behaviour every registry promises, in the style of ShedLock's provider suite: extend it in
 * your own tests to check a {@code LockRegistry} of your own (on a store of your own) against
 * the same contract that distlock's Redis, Redlock and in-memory registries pass.
 * <p>
 * A subclass supplies registries that share one store (two registries stand for two
 * processes), a way to delete a key behind the holder's back and a way to see whether the store
 * holds a key:
 *
 * <pre class="code">
 * class MyLockRegistryContractTests extends AbstractLockRegistryContractTests {
 *
 *     protected AbstractLockRegistry createRegistry(Duration leaseTime) {
 *         return new MyLockRegistry(store, leaseTime);
 *     }
 *
 *     protected void deleteInStore(AbstractLockRegistry registry, String key) {
 *         store.delete(key);
 *     }
 *
 *     protected boolean isHeldInStore(AbstractLockRegistry registry, String key) {
 *         return store.exists(key);
 *     }
 * }
 * </pre>
 *
 * It needs JUnit Jupiter, AssertJ and Awaitility, which {@code distlock-test} brings.
 */
@Timeout(60)
public abstract class AbstractLockRegistryContractTests {

	private final List<AbstractLockRegistry> registries = new ArrayList<>();

	private final ExecutorService executor = Executors.newCachedThreadPool();

	private final List<ExecutorService> holders = new CopyOnWriteArrayList<>();

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

	/**
	 * Create a registry on the shared store that the test closes after it runs.
	 * @param leaseTime the lease of watchdog-renewed grants
	 * @return the registry
	 */
	protected final AbstractLockRegistry registry(Duration leaseTime) {
		AbstractLockRegistry registry = createRegistry(leaseTime);
		this.registries.add(registry);
		return registry;
	}

	/**
	 * Create a registry with a 30s lease that the test closes after it runs.
	 * @return the registry
	 */
	protected final AbstractLockRegistry registry() {
		return registry(Duration.ofSeconds(30));
	}

	/**
	 * Return a key no other test uses.
	 * @return a random key
	 */
	protected static String randomKey() {
		return "contract:" + UUID.randomUUID();
	}

	@AfterEach
	void closeRegistries() {
		this.executor.shutdownNow();
		this.holders.forEach(ExecutorService::shutdownNow);
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
	void aMultiLockWhoseFirstKeyIsLostWhileItWaitsForTheNextTakesItAgain() throws Exception {
		AbstractLockRegistry registry = registry(Duration.ofMillis(900));
		AbstractLockRegistry other = registry();
		String first = "a:" + randomKey();
		String second = "b:" + randomKey();
		LockLease blocker = other.acquire(second, Duration.ZERO);
		Future<Boolean> locked = this.executor.submit(() -> {
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
		try {
			Thread.sleep(300);
			assertThat(this.executor.submit(() -> tryAndUnlock(registry().obtainReadWrite(key).readLock())).get())
				.as("a new reader while a writer waits").isFalse();
		}
		finally {
			// Also when the check fails: a read lock left on this thread would fail later tests.
			firstReader.unlock();
		}
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

	/** Run on a thread of its own: a pooled thread may be one that holds the lock already. */
	private static <T> T onNewThread(Callable<T> task) throws Exception {
		FutureTask<T> future = new FutureTask<>(task);
		new Thread(future).start();
		return future.get(30, TimeUnit.SECONDS);
	}

	private static boolean tryAndUnlock(DistLock lock) throws InterruptedException {
		return tryAndUnlock(lock, Duration.ZERO);
	}

	private static boolean tryAndUnlock(DistLock lock, Duration waitTime) throws InterruptedException {
		if (lock.tryLock(waitTime)) {
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


	@Test
	void anExpiredFixedLeaseNeverReleasedNoLongerBlocksAnotherThreadOfTheSameRegistry() throws Exception {
		AbstractLockRegistry registry = registry();
		AbstractLockRegistry other = registry();
		String key = randomKey();
		CountDownLatch lost = new CountDownLatch(1);
		LockLease stale = registry.acquire(LockRequest.of(key).leaseTime(Duration.ofMillis(200)));
		stale.onLost((ex) -> lost.countDown());
		assertThat(lost.await(5, TimeUnit.SECONDS)).isTrue();
		// The holder counts its lease lost a drift margin before the store drops the key.
		await().atMost(Duration.ofSeconds(5)).until(() -> !isHeldInStore(registry, key));
		LockLease successor = this.executor.submit(() -> registry.tryAcquire(key, Duration.ZERO)).get()
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
	void aStaleReleaseLeavesTheReentrantHoldOfTheSuccessorThreadAlone() throws Exception {
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
	void aWaiterOfTheSameRegistryIsGrantedWhenTheHoldersFixedLeaseExpires() throws Exception {
		AbstractLockRegistry registry = registry();
		String key = randomKey();
		CountDownLatch lost = new CountDownLatch(1);
		LockLease stale = registry.acquire(LockRequest.of(key).leaseTime(Duration.ofMillis(300)));
		stale.onLost((ex) -> lost.countDown());
		Future<LockLease> waiter = this.executor.submit(() -> registry.acquire(key, Duration.ofSeconds(20)));
		// Granted after the expiry, long before its own wait time: it does not queue behind the
		// stale holder, which never releases.
		LockLease granted = waiter.get(10, TimeUnit.SECONDS);
		assertThat(lost.getCount()).as("the loss is signalled no later than the grant").isZero();
		assertThat(granted.fencingToken()).isGreaterThan(stale.fencingToken());
		granted.release();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(stale::release);
		assertThat(registry.localKeyCount()).isZero();
	}

	@Test
	void aLostThreadHoldIsNeitherReenteredNorReplacedByTryLock() throws Exception {
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
		assertThat(this.executor.submit(() -> tryAndUnlock(registry.obtain(key))).get())
			.as("another thread of the process takes the key at once").isTrue();
		// One unlock() for the one hold: the refused calls left nothing to unlock.
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::unlock);
		assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock::unlock);
		assertThat(lock.tryLock()).as("after unlocking the lost hold, the thread locks afresh").isTrue();
		assertThat(isHeldInStore(registry, key)).isTrue();
		lock.unlock();
		assertThat(registry.localKeyCount()).isZero();
	}

	@Test
	void theShortestLeaseIsGrantedOnAFreeKey() {
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
	void extendMovesAFixedLeaseAndItsValidity() throws Exception {
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
	void extendOfAKeyDeletedBehindTheHolderReturnsFalseAndSignalsTheLoss() {
		AbstractLockRegistry registry = registry();
		String key = randomKey();
		AtomicInteger lost = new AtomicInteger();
		LockLease lease = registry.acquire(LockRequest.of(key).leaseTime(Duration.ofSeconds(10)));
		lease.onLost((ex) -> lost.incrementAndGet());
		loseInStore(registry, key);
		boolean heldByAnotherOwner = isHeldInStore(registry, key);
		assertThat(lease.extend(Duration.ofSeconds(10))).isFalse();
		assertThat(lost).hasValue(1);
		assertThat(lease.isValid()).isFalse();
		assertThat(isHeldInStore(registry, key)).as("a refused extension neither re-creates nor takes the key")
			.isEqualTo(heldByAnotherOwner);
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lease::release);
	}

	@Test
	void extendIsRefusedForReleasedAndWatchdogLeasesAndForTooShortLeases() {
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
	void extendAsyncMovesAFixedLeaseWithoutWaitingAndFailsAsExtendThrows() throws Exception {
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
		assertThat(lost).hasValue(1);
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
	void aReentryWithALeaseJoinsTheOuterHoldAndItsLease() throws Exception {
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
	void aWriterDowngradesToAReaderAndTheReadLockOutlivesTheWriteLock() throws Exception {
		assumeTrue(offersFairAndReadWriteLocks(), "fair and read/write locks are not offered");
		AbstractLockRegistry registry = registry();
		AbstractLockRegistry other = registry();
		String key = randomKey();
		DistLock write = registry.obtainReadWrite(key).writeLock();
		DistLock read = registry.obtainReadWrite(key).readLock();
		// The holder's steps run on a thread of their own, each bounded: a downgrade that waited
		// for its own write lock would hang there and fail here.
		ExecutorService holder = newHolderThread();
		runOnHolder(holder, write::lock);
		runOnHolder(holder, read::lock);
		runOnHolder(holder, read::unlock);
		assertThat(onHolder(holder, () -> read.tryLock(1, TimeUnit.SECONDS))).as("the writer takes the read lock")
			.isTrue();
		assertThat(this.executor.submit(() -> tryAndUnlock(other.obtainReadWrite(key).readLock())).get())
			.as("another process's reader while the write lock is held").isFalse();
		runOnHolder(holder, write::unlock);
		assertThat(onHolder(holder, read::isHeldByCurrentThread)).isTrue();
		assertThat(onHolder(holder, write::isHeldByCurrentThread)).isFalse();
		assertThat(this.executor.submit(() -> tryAndUnlock(other.obtainReadWrite(key).writeLock())).get())
			.as("another process's writer while the downgraded reader holds").isFalse();
		assertThat(this.executor.submit(() -> tryAndUnlock(other.obtainReadWrite(key).readLock())).get())
			.as("another process's reader shares").isTrue();
		assertThat(this.executor.submit(() -> tryAndUnlock(registry.obtainReadWrite(key).writeLock())).get())
			.as("another thread's writer").isFalse();
		runOnHolder(holder, read::unlock);
		assertThat(this.executor.submit(() -> tryAndUnlock(other.obtainReadWrite(key).writeLock())).get())
			.as("a writer once the reader left").isTrue();
		assertThat(registry.localKeyCount()).isZero();
	}

	@Test
	void aDowngradeIsGrantedWhileAnotherProcessWaitsForTheWriteLock() throws Exception {
		assumeTrue(offersFairAndReadWriteLocks(), "fair and read/write locks are not offered");
		AbstractLockRegistry registry = registry();
		AbstractLockRegistry other = registry();
		AbstractLockRegistry third = registry();
		String key = randomKey();
		DistLock write = registry.obtainReadWrite(key).writeLock();
		DistLock read = registry.obtainReadWrite(key).readLock();
		ExecutorService holder = newHolderThread();
		runOnHolder(holder, write::lock);
		DistLock otherWrite = other.obtainReadWrite(key).writeLock();
		Future<Boolean> waitingWriter = this.executor.submit(() -> {
			boolean acquired = otherWrite.tryLock(Duration.ofSeconds(20));
			if (acquired) {
				otherWrite.unlock();
			}
			return acquired;
		});
		awaitWriterWaiting(other, key);
		// A waiting writer holds back new readers, but not the writer's own downgrade.
		assertThat(onHolder(holder, () -> read.tryLock(1, TimeUnit.SECONDS))).isTrue();
		runOnHolder(holder, write::unlock);
		assertThat(this.executor.submit(() -> tryAndUnlock(third.obtainReadWrite(key).writeLock())).get())
			.as("a third process's writer while the downgraded reader holds").isFalse();
		assertThat(waitingWriter.isDone()).as("the waiting writer while the downgraded reader holds").isFalse();
		runOnHolder(holder, read::unlock);
		assertThat(waitingWriter.get(20, TimeUnit.SECONDS)).as("the waiting writer once the reader left").isTrue();
		assertThat(registry.localKeyCount()).isZero();
	}

	/**
	 * Wait until another process's writer of the key has marked in the store that it waits. By
	 * default only until it has started; a store that can show the mark overrides this so that
	 * the downgrade is known to come after it.
	 * @param registry the waiting writer's registry
	 * @param key the key
	 * @throws InterruptedException if interrupted
	 */
	protected void awaitWriterWaiting(AbstractLockRegistry registry, String key) throws InterruptedException {
		await().atMost(Duration.ofSeconds(5)).until(() -> registry.localKeyCount() > 0);
	}

	@Test
	void theHangDetectorOfTheDowngradeTestsFiresOnAReaderThatDoesNotHoldTheWriteLock() throws Exception {
		assumeTrue(offersFairAndReadWriteLocks(), "fair and read/write locks are not offered");
		AbstractLockRegistry registry = registry();
		String key = randomKey();
		DistLock write = registry.obtainReadWrite(key).writeLock();
		DistLock read = registry.obtainReadWrite(key).readLock();
		ExecutorService holder = newHolderThread();
		ExecutorService reader = newHolderThread();
		runOnHolder(holder, write::lock);
		// The negative control: the same bounded step on a thread without the write lock waits, and
		// the bound reports it.
		Future<Void> blocked = reader.submit(() -> {
			read.lock();
			return null;
		});
		assertThatExceptionOfType(TimeoutException.class).isThrownBy(() -> blocked.get(500, TimeUnit.MILLISECONDS));
		runOnHolder(holder, write::unlock);
		blocked.get(10, TimeUnit.SECONDS);
		runOnHolder(reader, read::unlock);
		assertThat(registry.localKeyCount()).isZero();
	}

	@Test
	void aReaderAskingForTheWriteLockIsRefusedAtOnce() throws Exception {
		assumeTrue(offersFairAndReadWriteLocks(), "fair and read/write locks are not offered");
		AbstractLockRegistry registry = registry();
		String key = randomKey();
		DistLock read = registry.obtainReadWrite(key).readLock();
		DistLock write = registry.obtainReadWrite(key).writeLock();
		ExecutorService holder = newHolderThread();
		runOnHolder(holder, read::lock);
		// Bounded: an upgrade that waited for the thread's own read lock would hang there.
		assertThat(onHolder(holder, () -> catchThrowable(write::lock))).isInstanceOf(IllegalMonitorStateException.class)
			.hasMessageContaining("upgrade");
		assertThat(onHolder(holder, () -> catchThrowable(() -> write.tryLock(Duration.ofSeconds(30)))))
			.isInstanceOf(IllegalMonitorStateException.class);
		assertThat(onHolder(holder, () -> catchThrowable(write::tryLock))).isInstanceOf(IllegalMonitorStateException.class);
		assertThat(onHolder(holder, () -> catchThrowable(() -> write.tryLock(Duration.ZERO, Duration.ofSeconds(5)))))
			.isInstanceOf(IllegalMonitorStateException.class);
		assertThat(onHolder(holder, read::isHeldByCurrentThread)).as("the read lock is kept").isTrue();
		runOnHolder(holder, read::unlock);
		boolean written = onHolder(holder, () -> write.tryLock());
		assertThat(written).as("the write lock once the read lock is released").isTrue();
		runOnHolder(holder, write::unlock);
		assertThat(registry.localKeyCount()).isZero();
	}

	@Test
	void aLockTakenWithAFixedLeaseRunsOutUnlessExtended() throws Exception {
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

	@Test
	void readAndWriteLocksTakeAFixedLeaseThatRunsOut() throws Exception {
		assumeTrue(offersFairAndReadWriteLocks(), "fair and read/write locks are not offered");
		AbstractLockRegistry registry = registry();
		AbstractLockRegistry other = registry();
		String key = randomKey();
		DistLock write = registry.obtainReadWrite(key).writeLock();
		DistLock read = registry.obtainReadWrite(key).readLock();
		DistLock otherWrite = other.obtainReadWrite(key).writeLock();
		DistLock otherRead = other.obtainReadWrite(key).readLock();
		for (DistLock lock : List.of(write, read)) {
			AtomicInteger lost = new AtomicInteger();
			assertThat(lock.tryLock(Duration.ofSeconds(2), Duration.ofMillis(300))).as(lock.toString()).isTrue();
			lock.lease().onLost((ex) -> lost.incrementAndGet());
			assertThat(lock.lease().remaining()).isLessThanOrEqualTo(Duration.ofMillis(300));
			assertThat(this.executor.submit(() -> tryAndUnlock(otherWrite)).get()).as("a writer while held").isFalse();
			assertThat(this.executor.submit(() -> tryAndUnlock(otherRead)).get()).as("a reader while held")
				.isEqualTo(lock == read);
			await().atMost(Duration.ofSeconds(5)).until(() -> lost.get() == 1);
			assertThat(lock.isHeldByCurrentThread()).isFalse();
			assertThat(onNewThread(() -> tryAndUnlock(otherWrite, Duration.ofSeconds(2))))
				.as("another process's writer once the fixed lease ran out").isTrue();
			assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::unlock);
		}
		assertThat(registry.localKeyCount()).isZero();
	}

	@Test
	void aDowngradeTakesTheReadLockWithItsOwnFixedLease() throws Exception {
		assumeTrue(offersFairAndReadWriteLocks(), "fair and read/write locks are not offered");
		AbstractLockRegistry registry = registry();
		AbstractLockRegistry other = registry();
		String key = randomKey();
		DistLock write = registry.obtainReadWrite(key).writeLock();
		DistLock read = registry.obtainReadWrite(key).readLock();
		write.lock();
		assertThat(read.tryLock(Duration.ofSeconds(2), Duration.ofMillis(300))).isTrue();
		AtomicInteger lost = new AtomicInteger();
		read.lease().onLost((ex) -> lost.incrementAndGet());
		write.unlock();
		assertThat(read.lease().extend(Duration.ofMillis(400))).isTrue();
		assertThat(this.executor.submit(() -> tryAndUnlock(other.obtainReadWrite(key).writeLock())).get()).isFalse();
		await().atMost(Duration.ofSeconds(5)).until(() -> lost.get() == 1);
		assertThat(this.executor.submit(() -> tryAndUnlock(other.obtainReadWrite(key).writeLock())).get())
			.as("another process's writer once the downgraded read lease ran out").isTrue();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(read::unlock);
		assertThat(registry.localKeyCount()).isZero();
	}

	/** A thread of its own for a holder whose steps the test runs one by one. */
	private ExecutorService newHolderThread() {
		ExecutorService holder = Executors.newSingleThreadExecutor();
		this.holders.add(holder);
		return holder;
	}

	/**
	 * Run one step of a holder on its thread, bounded so that a step that hangs fails the test
	 * instead of hanging it (the bound is far beyond any step's own wait).
	 */
	private static <T> T onHolder(ExecutorService holder, Callable<T> step) throws Exception {
		return holder.submit(step).get(10, TimeUnit.SECONDS);
	}

	private static void runOnHolder(ExecutorService holder, Runnable step) throws Exception {
		holder.submit(step).get(10, TimeUnit.SECONDS);
	}

	@Test
	void viewsOfTheSameLockAreEqualAndInterchangeable() {
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
	void lockOnAnInterruptedThreadAcquiresAndKeepsTheFlag() {
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
	void interruptibleAcquisitionsOfAnInterruptedThreadThrowAndLeaveNoKey() {
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
	void waitersInterruptedWhileWaitingGiveUpTheirPlaceAndLeaveNoKey() throws Exception {
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
				outcomes.add(this.executor.submit(() -> {
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

	// ---- the asynchronous API: holds owned by their lease, waiters that are not threads

	@Test
	void acquireAsyncHoldsTheKeyAndReleaseAsyncFreesIt() throws Exception {
		AbstractLockRegistry registry = registry();
		String key = randomKey();
		LockLease lease = registry.acquireAsync(LockRequest.of(key)).toCompletableFuture().get(5, TimeUnit.SECONDS);
		assertThat(lease.isValid()).isTrue();
		assertThat(isHeldInStore(registry, key)).isTrue();
		assertThat(registry.acquireAsync(LockRequest.of(key).waitTime(Duration.ofMillis(100)))
			.toCompletableFuture()).as("owned by its lease: not re-entered by a second acquisition")
			.failsWithin(Duration.ofSeconds(5))
			.withThrowableOfType(ExecutionException.class)
			.withCauseInstanceOf(LockAcquisitionException.class);
		lease.releaseAsync().get(5, TimeUnit.SECONDS);
		assertThat(lease.isValid()).isFalse();
		assertThat(isHeldInStore(registry, key)).isFalse();
		assertThat(registry.localKeyCount()).isZero();
	}

	@Test
	void acquireAsyncFailsWithLockAcquisitionExceptionAtItsWaitTime() throws Exception {
		AbstractLockRegistry first = registry();
		AbstractLockRegistry second = registry();
		String key = randomKey();
		try (LockLease lease = first.acquire(key, Duration.ZERO)) {
			long start = System.nanoTime();
			CompletableFuture<LockLease> waiting = second
				.acquireAsync(LockRequest.of(key).waitTime(Duration.ofMillis(300)))
				.toCompletableFuture();
			assertThat(waiting).isNotDone();
			assertThat(waiting).failsWithin(Duration.ofSeconds(5))
				.withThrowableOfType(ExecutionException.class)
				.havingCause()
				.isInstanceOf(LockAcquisitionException.class)
				.withMessage("Could not acquire lock for key '" + key + "' within 300ms");
			assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isBetween(300L, 2_000L);
		}
		assertThat(second.localKeyCount()).isZero();
	}

	@Test
	void asyncWaitersAreGrantedOneAtATimeAndAllInTurn() throws Exception {
		int waiters = 200;
		AbstractLockRegistry first = registry();
		AbstractLockRegistry second = registry();
		String key = randomKey();
		ExclusionProbe probe = new ExclusionProbe();
		List<CompletableFuture<Integer>> results = new ArrayList<>();
		for (int i = 0; i < waiters; i++) {
			AbstractLockRegistry registry = (i % 2 == 0) ? first : second;
			results.add(registry
				.executeLockedAsync(LockRequest.of(key).waitTime(Duration.ofSeconds(60)), (lease) -> probe.visit())
				.toCompletableFuture());
		}
		CompletableFuture.allOf(results.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
		assertThat(probe.counter()).as("a non-atomic counter, read and written across an asynchronous gap")
			.isEqualTo(waiters);
		assertThat(probe.mostInside()).isEqualTo(1);
		assertThat(isHeldInStore(first, key)).isFalse();
		assertThat(first.localKeyCount() + second.localKeyCount()).isZero();
	}

	@Test
	void theExclusionProbeSeesOverlapsWithoutTheLock() throws Exception {
		// Negative control for the probe above: the same visits without a lock overlap.
		ExclusionProbe probe = new ExclusionProbe();
		List<CompletableFuture<Integer>> results = new ArrayList<>();
		for (int i = 0; i < 200; i++) {
			results.add(probe.visit());
		}
		CompletableFuture.allOf(results.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
		assertThat(probe.mostInside()).isGreaterThan(1);
		assertThat(probe.counter()).isLessThan(200);
	}

	@Test
	void cancellingAnAsyncAcquisitionGivesUpItsPlaceAndLeavesNoKey() throws Exception {
		AbstractLockRegistry holder = registry();
		AbstractLockRegistry waiters = registry();
		AbstractLockRegistry late = registry();
		for (boolean fair : offersFairAndReadWriteLocks() ? new boolean[] { false, true } : new boolean[] { false }) {
			String key = randomKey();
			LockLease held = holder.acquire(LockRequest.of(key).fair(fair));
			CompletableFuture<LockLease> waiting = waiters
				.acquireAsync(LockRequest.of(key).fair(fair).waitTime(Duration.ofSeconds(30)))
				.toCompletableFuture();
			Thread.sleep(300);
			assertThat(waiting.cancel(false)).isTrue();
			held.release();
			// Granted at once: the cancelled waiter kept no place ahead of it.
			LockLease next = late.acquire(LockRequest.of(key).fair(fair).waitTime(Duration.ofSeconds(2)));
			next.release();
			assertThat(isHeldInStore(late, key)).as("fair=" + fair).isFalse();
			await().atMost(Duration.ofSeconds(5)).until(() -> waiters.localKeyCount() == 0);
		}
	}

	@Test
	void executeLockedAsyncHoldsUntilTheStageCompletes() throws Exception {
		AbstractLockRegistry registry = registry();
		AbstractLockRegistry other = registry();
		String key = randomKey();
		CompletableFuture<String> work = new CompletableFuture<>();
		CompletableFuture<String> result = registry
			.executeLockedAsync(LockRequest.of(key), (lease) -> work.thenApply((value) -> value + lease.key()))
			.toCompletableFuture();
		await().atMost(Duration.ofSeconds(5)).until(() -> isHeldInStore(registry, key));
		assertThat(other.tryAcquire(key, Duration.ZERO)).isEmpty();
		assertThat(result).isNotDone();
		work.complete("done:");
		assertThat(result.get(5, TimeUnit.SECONDS)).isEqualTo("done:" + key);
		assertThat(isHeldInStore(registry, key)).isFalse();

		CompletableFuture<String> failing = new CompletableFuture<>();
		CompletableFuture<String> failed = registry.executeLockedAsync(LockRequest.of(key), (lease) -> failing)
			.toCompletableFuture();
		await().atMost(Duration.ofSeconds(5)).until(() -> isHeldInStore(registry, key));
		IllegalStateException failure = new IllegalStateException("task failed");
		failing.completeExceptionally(failure);
		assertThat(failed).failsWithin(Duration.ofSeconds(5))
			.withThrowableOfType(ExecutionException.class)
			.withCause(failure);
		assertThat(isHeldInStore(registry, key)).isFalse();
		assertThat(registry.localKeyCount()).isZero();
	}

	@Test
	void cancellingExecuteLockedAsyncCancelsTheTaskAndReleases() throws Exception {
		AbstractLockRegistry registry = registry();
		String key = randomKey();
		CompletableFuture<String> work = new CompletableFuture<>();
		CompletableFuture<String> result = registry.executeLockedAsync(LockRequest.of(key), (lease) -> work)
			.toCompletableFuture();
		await().atMost(Duration.ofSeconds(5)).until(() -> isHeldInStore(registry, key));
		result.cancel(false);
		assertThat(work).isCancelled();
		await().atMost(Duration.ofSeconds(5)).until(() -> !isHeldInStore(registry, key));
		assertThat(registry.localKeyCount()).isZero();
	}

	@Test
	void executeLockedAsyncFailsWithLockLostExceptionAsSoonAsTheLockIsLost() throws Exception {
		AbstractLockRegistry registry = registry(Duration.ofMillis(900));
		String key = randomKey();
		CompletableFuture<String> work = new CompletableFuture<>();
		CompletableFuture<String> result = registry.executeLockedAsync(LockRequest.of(key), (lease) -> work)
			.toCompletableFuture();
		await().atMost(Duration.ofSeconds(5)).until(() -> isHeldInStore(registry, key));
		loseInStore(registry, key);
		assertThat(result).failsWithin(Duration.ofSeconds(5))
			.withThrowableOfType(ExecutionException.class)
			.withCauseInstanceOf(LockLostException.class);
		assertThat(work).as("the task is told to stop").isCancelled();
		await().atMost(Duration.ofSeconds(5)).until(() -> registry.localKeyCount() == 0);
	}

	/**
	 * A detector for asynchronous sections: a counter read before and written after an
	 * asynchronous gap, and the most visitors inside at once.
	 */
	private static final class ExclusionProbe {

		private final AtomicInteger inside = new AtomicInteger();

		private final AtomicInteger most = new AtomicInteger();

		private volatile int counter;

		CompletableFuture<Integer> visit() {
			this.most.accumulateAndGet(this.inside.incrementAndGet(), Math::max);
			int read = this.counter;
			return CompletableFuture.supplyAsync(() -> {
				this.counter = read + 1;
				this.inside.decrementAndGet();
				return read;
			}, CompletableFuture.delayedExecutor(200, TimeUnit.MICROSECONDS));
		}

		int counter() {
			return this.counter;
		}

		int mostInside() {
			return this.most.get();
		}

	}

}

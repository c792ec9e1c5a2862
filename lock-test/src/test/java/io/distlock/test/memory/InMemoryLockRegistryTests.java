package io.distlock.test.memory;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.distlock.core.DistLock;
import io.distlock.core.LockAcquisitionException;
import io.distlock.core.LockLease;
import io.distlock.core.LockListener;
import io.distlock.core.LockRequest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the in-memory registry adds to the contract, and the engine's local state at scale.
 */
@Timeout(120)
class InMemoryLockRegistryTests {

	@Test
	void aMillionDistinctKeysLockedAndReleasedLeaveNoLocalState() {
		try (InMemoryLockRegistry registry = new InMemoryLockRegistry()) {
			for (int i = 0; i < 1_000_000; i++) {
				DistLock lock = registry.obtain("key:" + i);
				lock.lock();
				lock.unlock();
			}
			assertThat(registry.localKeyCount()).isZero();
			assertThat(registry.heldLeases()).isEmpty();
		}
	}

	@Test
	void listenerSeesGrantsAndReleasesButNotReentrantHolds() {
		AtomicInteger acquired = new AtomicInteger();
		AtomicInteger released = new AtomicInteger();
		LockListener listener = new LockListener() {

			@Override
			public void onAcquired(LockLease lease, Duration waited) {
				acquired.incrementAndGet();
			}

			@Override
			public void onReleased(LockLease lease, Duration held, ReleaseOutcome outcome) {
				assertThat(outcome).isEqualTo(ReleaseOutcome.RELEASED);
				released.incrementAndGet();
			}

		};
		try (InMemoryLockRegistry registry = new InMemoryLockRegistry(Duration.ofSeconds(30), listener)) {
			DistLock lock = registry.obtain("listened");
			lock.lock();
			lock.lock();
			lock.unlock();
			lock.unlock();
		}
		assertThat(acquired).hasValue(1);
		assertThat(released).hasValue(1);
	}

	@Test
	void aFailingListenerNeverChangesTheLocksOutcome() throws Exception {
		try (InMemoryLockRegistry registry = new InMemoryLockRegistry(Duration.ofSeconds(30), new FailingListener(true))) {
			LockLease lease = registry.acquire("guarded", Duration.ZERO);
			assertThat(lease.isValid()).isTrue();
			assertThat(CompletableFuture.supplyAsync(() -> registry.tryAcquire("guarded", Duration.ZERO)).get(10, TimeUnit.SECONDS))
				.as("refused to another thread while held, told onNotAcquired")
				.isEmpty();
			assertThat(registry.acquireAsync(LockRequest.of("guarded").waitTime(Duration.ZERO)).toCompletableFuture())
				.as("refused while held, told notAcquired")
				.failsWithin(Duration.ofSeconds(10))
				.withThrowableThat()
				.withCauseInstanceOf(LockAcquisitionException.class);
			lease.release();
			LockLease async = registry.acquireAsync(LockRequest.of("guarded")).toCompletableFuture().get(10, TimeUnit.SECONDS);
			assertThat(async.isValid()).isTrue();
			async.release();
			assertThat(registry.heldLeases()).isEmpty();
		}
	}

	@Test
	void aListenerThatFailsToFollowAnAsynchronousAcquisitionNeverChangesItsOutcome() throws Exception {
		try (InMemoryLockRegistry registry = new InMemoryLockRegistry(Duration.ofSeconds(30), new FailingListener(false))) {
			LockLease lease = registry.acquireAsync(LockRequest.of("guarded")).toCompletableFuture().get(10, TimeUnit.SECONDS);
			assertThat(lease.isValid()).isTrue();
			assertThat(registry.acquireAsync(LockRequest.of("guarded").waitTime(Duration.ZERO)).toCompletableFuture())
				.failsWithin(Duration.ofSeconds(10))
				.withThrowableThat()
				.withCauseInstanceOf(LockAcquisitionException.class);
			lease.release();
		}
	}

	@Test
	void closingTheRegistryTellsHoldersTheirLocksAreLost() {
		InMemoryLockRegistry registry = new InMemoryLockRegistry();
		LockLease lease = registry.acquire("closing", Duration.ZERO);
		AtomicInteger lost = new AtomicInteger();
		lease.onLost((ex) -> lost.incrementAndGet());
		registry.close();
		assertThat(lost).hasValue(1);
		assertThat(lease.isValid()).isFalse();
	}

	/**
	 * Throws from every callback an acquisition or a release makes, and from the object that
	 * follows an asynchronous acquisition, or from {@code onAsyncAcquiring} itself.
	 */
	private record FailingListener(boolean followsAsyncAcquisitions) implements LockListener {

		@Override
		public void onAcquiring(String name, String key) {
			throw new IllegalStateException("metrics are down");
		}

		@Override
		public Acquisition onAsyncAcquiring(String name, String key) {
			if (!this.followsAsyncAcquisitions) {
				throw new IllegalStateException("metrics are down");
			}
			return new Acquisition() {

				@Override
				public void acquired(LockLease lease, Duration waited) {
					throw new IllegalStateException("metrics are down");
				}

				@Override
				public void notAcquired(Duration waited, Throwable failure) {
					throw new IllegalStateException("metrics are down");
				}

			};
		}

		@Override
		public void onAcquired(LockLease lease, Duration waited) {
			throw new IllegalStateException("metrics are down");
		}

		@Override
		public void onNotAcquired(String name, String key, Duration waited, Throwable failure) {
			throw new IllegalStateException("metrics are down");
		}

		@Override
		public void onReleased(LockLease lease, Duration held, ReleaseOutcome outcome) {
			throw new IllegalStateException("metrics are down");
		}

	}

}

package io.distlock.test.memory;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.distlock.core.DistLock;
import io.distlock.core.LockLease;
import io.distlock.core.LockListener;

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
	void aFailingListenerNeverChangesTheLocksOutcome() {
		LockListener failing = new LockListener() {

			@Override
			public void onAcquired(LockLease lease, Duration waited) {
				throw new IllegalStateException("metrics are down");
			}

		};
		try (InMemoryLockRegistry registry = new InMemoryLockRegistry(Duration.ofSeconds(30), failing)) {
			try (LockLease lease = registry.acquire("guarded", Duration.ZERO)) {
				assertThat(lease.isValid()).isTrue();
			}
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

}

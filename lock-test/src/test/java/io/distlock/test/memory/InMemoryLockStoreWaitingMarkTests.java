package io.distlock.test.memory;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import io.distlock.store.LockMode;
import io.distlock.store.LockStore.Release;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The in-memory store keeps a waiter's mark as Redis keeps its {@code :waiting} key: a give-back
 * of an attempt that holds nothing does not clear it, so the holder's release still says that
 * someone waits.
 */
class InMemoryLockStoreWaitingMarkTests {

	@Test
	void aGiveBackOfAnotherOwnerLeavesTheWaitersMark() {
		InMemoryLockStore store = new InMemoryLockStore();
		Duration lease = Duration.ofSeconds(30);
		assertThat(store.tryAcquire(LockMode.EXCLUSIVE, "k", "holder", lease, Duration.ZERO).join().acquired()).isTrue();
		assertThat(store.tryAcquire(LockMode.EXCLUSIVE, "k", "waiter", lease, Duration.ofSeconds(5)).join().acquired())
			.isFalse();
		assertThat(store.release(LockMode.EXCLUSIVE, "k", "a-failed-attempt").join()).isFalse();
		assertThat(store.releaseExclusive("k", "holder", 0).join()).isEqualTo(Release.RELEASED_AWAITED);
	}

}

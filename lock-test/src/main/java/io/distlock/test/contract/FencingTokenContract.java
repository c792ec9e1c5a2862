package io.distlock.test.contract;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import io.distlock.core.LockLease;
import io.distlock.core.LockLostException;
import io.distlock.engine.AbstractLockRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Fencing tokens only grow: across grants and processes, and after the key was deleted in the
 * store.
 */
interface FencingTokenContract extends LockRegistryContract {

	@Test
	default void fencingTokensStrictlyIncreaseAcrossGrantsAndProcesses() {
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
	default void fencingTokenStillGrowsAfterTheKeyIsDeleted() {
		AbstractLockRegistry registry = registry();
		String key = randomKey();
		LockLease first = registry.acquire(key, Duration.ZERO);
		deleteInStore(registry, key);
		assertThatExceptionOfType(LockLostException.class).isThrownBy(first::release);
		try (LockLease second = registry.acquire(key, Duration.ZERO)) {
			assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
		}
	}

}

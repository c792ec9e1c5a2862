package io.distlock.test.contract;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.distlock.core.LockContext;
import io.distlock.core.LockLease;
import io.distlock.core.LockRequest;
import io.distlock.engine.AbstractLockRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * How a hold ends: {@code executeLocked} releases after its task, failed or not; a lease may be
 * released from another thread and twice; a release may keep the key taken until a given time;
 * and {@code heldLocks} describes what is held until then.
 */
interface ReleaseContract extends LockRegistryContract {

	@Test
	default void executeLockedExposesTheLeaseAndReleasesAfterwards() {
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
	default void executeLockedReleasesWhenTheTaskFailsAndKeepsItsException() {
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
	default void aLeaseCanBeReleasedByAnotherThreadAndReleasingTwiceDoesNothing() throws Exception {
		AbstractLockRegistry registry = registry();
		String key = randomKey();
		LockLease lease = registry.acquire(key, Duration.ZERO);
		executor().submit(() -> lease.release()).get(5, TimeUnit.SECONDS);
		lease.release();
		assertThat(isHeldInStore(registry, key)).isFalse();
		Optional<LockLease> again = registry.tryAcquire(key, Duration.ZERO);
		assertThat(again).isPresent();
		again.get().release();
	}

	@Test
	default void releaseWithHoldAtLeastKeepsTheKeyTakenUntilThen() throws Exception {
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
	default void releaseWithAHoldAtLeastAlreadyPassedFreesTheKeyAtOnce() throws Exception {
		AbstractLockRegistry registry = registry();
		String key = randomKey();
		LockLease lease = registry.acquire(key, Duration.ZERO);
		Thread.sleep(50);
		lease.release(Duration.ofMillis(10));
		assertThat(isHeldInStore(registry, key)).isFalse();
	}

	@Test
	default void heldLocksDescribeWhatIsHeld() {
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

}

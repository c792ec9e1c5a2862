package io.distlock.redis;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.distlock.core.DistLock;
import io.distlock.core.LockContext;
import io.distlock.core.LockLease;
import io.distlock.test.redis.RedisServerExtension;
import io.distlock.test.registry.LockRegistries;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A thread's hold released by another thread (a lease handed to the code that finishes the
 * work): while that release is on its way to Redis, the owning thread asking for the same key
 * again is a new acquisition, not a re-entry of the hold being released, and certainly not a
 * lost lock.
 */
@Timeout(60)
class CrossThreadReleaseIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockRegistries registries = LockRegistries.on(redis);

	@Test
	void theOwnerThreadAskingAgainDuringAnotherThreadsReleaseIsANewAcquisition() throws Exception {
		LettuceConnectionFactory factory = redis.newConnectionFactory(Duration.ofSeconds(10));
		RedisLockRegistry registry = this.registries.add(RedisLockRegistry.builder(factory).build());
		String key = this.registries.randomKey();
		LockLease first = registry.acquire(key, Duration.ZERO);
		CompletableFuture<Void> released;
		Optional<LockLease> duringRelease;
		boolean heldDuringRelease;
		redis.server().pause();
		try {
			// Another thread releases this thread's hold; the release waits for the frozen server.
			released = CompletableFuture.runAsync(first::release);
			// Released once the lease says so and its hold is counted off; only then is the owner's
			// next request not a re-entry.
			await().atMost(Duration.ofSeconds(5))
				.pollInterval(Duration.ofMillis(1))
				.until(() -> !first.isValid() && registry.heldLocks()
					.stream()
					.noneMatch((held) -> held.key().equals(key) && held.holds() > 0));
			duringRelease = registry.tryAcquire(key, Duration.ZERO);
			DistLock lock = registry.obtain(key);
			heldDuringRelease = lock.tryLock();
			if (heldDuringRelease) {
				lock.unlock();
			}
		}
		finally {
			redis.server().resume();
		}
		released.get(5, TimeUnit.SECONDS);
		// The key is still taken by the hold being released: nothing to re-enter, nothing lost.
		assertThat(duringRelease).as("tryAcquire during the release").isEmpty();
		assertThat(heldDuringRelease).as("tryLock during the release").isFalse();
		try (LockLease next = registry.acquire(key, Duration.ofSeconds(5))) {
			assertThat(next.isValid()).isTrue();
			assertThat(next.fencingToken()).isGreaterThan(first.fencingToken());
		}
		assertThat(registry.localKeyCount()).isZero();
	}

	/**
	 * A lease taken with {@code DistLock.lock()} is bound to its thread's {@link LockContext};
	 * released by another thread, it must not stay there: {@code LockContext.current()} would
	 * hand its stale token to the thread's later code, and {@code LockedTransactionGuard}, which
	 * confirms every bound lease before a commit, would roll back every later transaction of a
	 * pooled thread as if its lock had been lost. It leaves when its thread unlocks, as the
	 * {@code Lock} contract has it do.
	 */
	@Test
	void aLockLeaseReleasedByAnotherThreadLeavesItsThreadsLockContext() throws Exception {
		RedisLockRegistry registry = this.registries.redis();
		DistLock lock = registry.obtain(this.registries.randomKey());
		lock.lock();
		LockLease lease = lock.lease();
		CompletableFuture.runAsync(lease::release).get(5, TimeUnit.SECONDS);
		try {
			lock.unlock();
		}
		catch (IllegalMonitorStateException released) {
			// Released already: the Lock contract's answer to an unlock of a lock not held.
		}
		assertThat(LockContext.all()).as("leases bound to this thread").doesNotContain(lease);
	}

}

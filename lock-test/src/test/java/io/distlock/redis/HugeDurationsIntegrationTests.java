package io.distlock.redis;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.distlock.core.DistLock;
import io.distlock.core.LockLease;
import io.distlock.core.LockRequest;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Catalogue B13: absurdly large times. A lease, an extension or a hold-at-least beyond the
 * registry's longest lease (24 h by default) is refused before anything reaches Redis, with a
 * message naming the limit, instead of overflowing a deadline after the key was written; a wait
 * too long to count in nanoseconds waits as long as it can.
 */
@Timeout(60)
class HugeDurationsIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private static final Duration AGES = Duration.ofDays(1_000_000_000L);

	private RedisLockRegistry registry;

	@BeforeEach
	void createRegistry() {
		this.registry = RedisLockRegistry.builder(redis.server().connectionFactory()).build();
	}

	@AfterEach
	void close() {
		this.registry.close();
		redis.server().flushAll();
	}

	@Test
	void aLeaseLongerThanTheLongestIsRefusedAndNothingIsWritten() {
		assertThat(this.registry.maxLeaseTime()).contains(Duration.ofHours(24));
		for (Duration lease : new Duration[] { Duration.ofHours(25), AGES }) {
			assertThatIllegalArgumentException()
				.isThrownBy(() -> this.registry.acquire(LockRequest.of("report").waitTime(Duration.ZERO).leaseTime(lease)))
				.withMessage("leaseTime '" + lease + "' is longer than this registry's maxLeaseTime 'PT24H': a holder "
						+ "that dies would keep the lock that long");
			assertThatIllegalArgumentException()
				.isThrownBy(() -> this.registry.obtain("report").tryLock(Duration.ZERO, lease));
			assertThat(redis.server().template().keys("*")).isEmpty();
		}
	}

	@Test
	void aLongerLongestLeaseCanBeConfigured() {
		try (RedisLockRegistry patient = RedisLockRegistry.builder(redis.server().connectionFactory())
			.maxLeaseTime(Duration.ofDays(7))
			.build();
				LockLease lease = patient
					.acquire(LockRequest.of("weekly").waitTime(Duration.ZERO).leaseTime(Duration.ofDays(3)))) {
			assertThat(redis.server().template().getExpire("distlock:{weekly}", TimeUnit.HOURS)).isBetween(71L, 72L);
			assertThat(lease.isValid()).isTrue();
		}
	}

	@Test
	void anExtensionBeyondTheLongestLeaseIsRefusedAndTheLeaseKept() {
		try (LockLease lease = this.registry
			.acquire(LockRequest.of("extend").waitTime(Duration.ZERO).leaseTime(Duration.ofSeconds(30)))) {
			assertThatIllegalArgumentException().isThrownBy(() -> lease.extend(AGES))
				.withMessageStartingWith("leaseTime '" + AGES + "' is longer than this registry's maxLeaseTime");
			assertThat(lease.isValid()).isTrue();
			assertThat(redis.server().template().getExpire("distlock:{extend}", TimeUnit.SECONDS)).isBetween(1L, 30L);
		}
	}

	@Test
	void aHoldAtLeastBeyondTheLongestLeaseIsRefusedAndTheLockStaysHeldUntilReleased() {
		LockLease lease = this.registry.acquire("hold", Duration.ZERO);
		assertThatIllegalArgumentException().isThrownBy(() -> lease.release(AGES))
			.withMessageStartingWith("holdAtLeast '" + AGES + "' is longer than this registry's maxLeaseTime");
		assertThat(lease.isValid()).isTrue();
		lease.release();
		assertThat(redis.server().template().hasKey("distlock:{hold}")).isFalse();
	}

	@Test
	void aWaitTooLongToCountInNanosecondsWaitsAsLongAsItCan() throws Exception {
		try (LockLease lease = this.registry.acquire("forever", AGES)) {
			assertThat(lease.isValid()).isTrue();
		}
		Optional<LockLease> tried = this.registry.tryAcquire("forever", AGES);
		assertThat(tried).isPresent();
		tried.get().release();
		DistLock lock = this.registry.obtain("forever");
		assertThat(lock.tryLock(Long.MAX_VALUE, TimeUnit.DAYS)).isTrue();
		lock.unlock();
		// The usual idiom for "wait for ever" with java.util.concurrent locks.
		assertThat(lock.tryLock(Long.MAX_VALUE, TimeUnit.NANOSECONDS)).isTrue();
		lock.unlock();
		assertThat(lock.tryLock(Long.MAX_VALUE, TimeUnit.MILLISECONDS)).isTrue();
		lock.unlock();
		assertThat(lock.tryLock(Duration.ofSeconds(Long.MAX_VALUE))).isTrue();
		lock.unlock();
		assertThat(lock.tryLock(Duration.ofSeconds(Long.MAX_VALUE), Duration.ofSeconds(30))).isTrue();
		lock.unlock();
		assertThat(redis.server().template().keys("*")).doesNotContain("distlock:{forever}");
	}

	@Test
	void aWaitTooLongToCountInNanosecondsWaitsForAHolderToLetGo() throws Exception {
		try (RedisLockRegistry other = RedisLockRegistry.builder(redis.server().connectionFactory()).build()) {
			other.acquire(LockRequest.of("contended").waitTime(Duration.ZERO).leaseTime(Duration.ofMillis(300)));
			DistLock lock = this.registry.obtain("contended");
			assertThat(lock.tryLock(Long.MAX_VALUE, TimeUnit.NANOSECONDS)).isTrue();
			lock.unlock();
		}
	}

	@Test
	void aHoldAtLeastOnALeaseReleasedAlreadyDoesNothing() {
		LockLease lease = this.registry.acquire("twice", Duration.ZERO);
		lease.release();
		lease.release(AGES);
		assertThat(redis.server().template().hasKey("distlock:{twice}")).isFalse();
	}

}

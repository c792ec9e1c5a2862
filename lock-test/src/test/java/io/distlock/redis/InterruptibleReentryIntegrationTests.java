package io.distlock.redis;

import java.time.Duration;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.distlock.core.DistLock;
import io.distlock.test.redis.RedisServerExtension;
import io.distlock.test.registry.LockRegistries;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code lockInterruptibly()} and {@code tryLock(wait)} re-enter a hold of the same thread as
 * {@code lock()} does: no second grant, no wait for itself, one {@code unlock()} per hold.
 */
@Timeout(60)
class InterruptibleReentryIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockRegistries registries = LockRegistries.on(redis);

	@Test
	void lockInterruptiblyAndTryLockWithAWaitReenterTheThreadsHold() throws Exception {
		RedisLockRegistry registry = this.registries.redis();
		RedisLockRegistry other = this.registries.redis();
		String key = "reentry:" + UUID.randomUUID();
		String redisKey = "distlock:{" + key + "}";
		DistLock lock = registry.obtain(key);
		lock.lockInterruptibly();
		long token = lock.lease().fencingToken();
		long scripts = redis.server().scriptCalls();
		registry.obtain(key).lockInterruptibly();
		assertThat(lock.tryLock(Duration.ofSeconds(5))).isTrue();
		assertThat(redis.server().scriptCalls()).as("re-entered without a round trip").isEqualTo(scripts);
		assertThat(lock.lease().fencingToken()).as("the same grant").isEqualTo(token);
		assertThat(other.tryAcquire(key, Duration.ZERO)).isEmpty();
		lock.unlock();
		lock.unlock();
		assertThat(redis.server().template().hasKey(redisKey)).as("held until the last unlock").isTrue();
		assertThat(lock.isHeldByCurrentThread()).isTrue();
		lock.unlock();
		assertThat(lock.isHeldByCurrentThread()).isFalse();
		assertThat(redis.server().template().hasKey(redisKey)).isFalse();
		assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock::unlock);
		assertThat(registry.localKeyCount()).isZero();
	}

}

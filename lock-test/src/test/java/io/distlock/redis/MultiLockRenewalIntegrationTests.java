package io.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.distlock.core.DistLock;
import io.distlock.core.LockLease;
import io.distlock.test.redis.RedisServerExtension;
import io.distlock.test.registry.LockRegistries;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A multi-lock is as many locks as keys, and the watchdog renews every one of them while the
 * multi-lock is held: another process gets none of the keys for many leases, and all of them at
 * once after the release.
 */
@Timeout(60)
class MultiLockRenewalIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockRegistries registries = LockRegistries.on(redis);

	private final RedisLockRegistry registry = this.registries
		.redis((builder) -> builder.leaseTime(Duration.ofMillis(300)));

	private final RedisLockRegistry competitor = this.registries.redis();

	@Test
	void aMultiLockHeldPastItsLeaseKeepsEveryKeyUntilReleased() throws Exception {
		List<String> keys = List.of("multi-renewal:a:" + UUID.randomUUID(), "multi-renewal:b:" + UUID.randomUUID(),
				"multi-renewal:c:" + UUID.randomUUID());
		DistLock multi = this.registry.obtainMulti(keys.toArray(String[]::new));
		multi.lock();
		AtomicInteger lost = new AtomicInteger();
		for (String key : keys) {
			this.registry.obtain(key).lease().onLost((ex) -> lost.incrementAndGet());
		}
		// Ten leases of 300 ms: only renewals keep the keys.
		long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
		while (System.nanoTime() < until) {
			for (String key : keys) {
				assertThat(this.competitor.tryAcquire(key, Duration.ZERO)).as(key).isEmpty();
			}
			Thread.sleep(100);
		}
		assertThat(multi.isHeldByCurrentThread()).isTrue();
		multi.unlock();
		assertThat(lost).hasValue(0);
		for (String key : keys) {
			assertThat(this.competitor.tryAcquire(key, Duration.ZERO)).as(key).hasValueSatisfying(LockLease::release);
		}
		assertThat(this.registry.localKeyCount()).isZero();
	}

}

package io.distlock.redis;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.distlock.core.DistLock;
import io.distlock.test.redis.RedisServerExtension;
import io.distlock.test.registry.LockRegistries;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Re-entering a lock and leaving it again must not disturb the watchdog's bookkeeping for the
 * key: the next hold of the same key, on another thread, is renewed for many leases.
 */
@Timeout(60)
class RenewalAfterReentryIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockRegistries registries = LockRegistries.on(redis);

	private final RedisLockRegistry registry = this.registries
		.redis((builder) -> builder.leaseTime(Duration.ofMillis(300)));

	private final RedisLockRegistry competitor = this.registries.redis();

	private final ExecutorService executor = Executors.newSingleThreadExecutor();

	@AfterEach
	void close() {
		this.executor.shutdownNow();
	}

	@Test
	void aHoldTakenAfterAReentrantCycleIsRenewedLikeAnyOther() throws Exception {
		String key = "reentry-renewal:" + UUID.randomUUID();
		DistLock lock = this.registry.obtain(key);
		lock.lock();
		lock.lock();
		lock.unlock();
		lock.unlock();
		assertThat(redis.server().template().hasKey("distlock:{" + key + "}")).isFalse();

		AtomicInteger lost = new AtomicInteger();
		DistLock next = this.registry.obtain(key);
		this.executor.submit(() -> {
			next.lock();
			next.lease().onLost((ex) -> lost.incrementAndGet());
		}).get(10, TimeUnit.SECONDS);
		// Ten leases of 300 ms: only renewals keep the key.
		long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
		while (System.nanoTime() < until) {
			assertThat(this.competitor.tryAcquire(key, Duration.ZERO)).isEmpty();
			Thread.sleep(100);
		}
		assertThat(this.executor.submit(() -> {
			boolean valid = next.lease().isValid();
			next.unlock();
			return valid;
		}).get(10, TimeUnit.SECONDS)).isTrue();
		assertThat(lost).hasValue(0);
		assertThat(this.competitor.tryAcquire(key, Duration.ZERO)).hasValueSatisfying((lease) -> lease.release());
	}

}

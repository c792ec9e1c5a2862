package io.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
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
 * The watchdog renews every key a holder has for as long as it holds them, whatever came before:
 * every key of a multi-lock (another process gets none of them for many leases, and all of them
 * at once after the release), and the next hold of a key that was re-entered and left again (the
 * re-entry does not disturb the watchdog's bookkeeping for the key).
 */
@Timeout(60)
class WatchdogRenewalIntegrationTests {

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
		competitorIsRefusedForTenLeases(keys);
		assertThat(multi.isHeldByCurrentThread()).isTrue();
		multi.unlock();
		assertThat(lost).hasValue(0);
		for (String key : keys) {
			assertThat(this.competitor.tryAcquire(key, Duration.ZERO)).as(key).hasValueSatisfying(LockLease::release);
		}
		assertThat(this.registry.localKeyCount()).isZero();
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
		// The next hold is on a thread of its own, which takes and releases it.
		ExecutorService holder = Executors.newSingleThreadExecutor();
		try {
			holder.submit(() -> {
				next.lock();
				next.lease().onLost((ex) -> lost.incrementAndGet());
			}).get(10, TimeUnit.SECONDS);
			competitorIsRefusedForTenLeases(List.of(key));
			assertThat(holder.submit(() -> {
				boolean valid = next.lease().isValid();
				next.unlock();
				return valid;
			}).get(10, TimeUnit.SECONDS)).isTrue();
		}
		finally {
			holder.shutdownNow();
		}
		assertThat(lost).hasValue(0);
		assertThat(this.competitor.tryAcquire(key, Duration.ZERO)).hasValueSatisfying(LockLease::release);
	}

	/** Ten leases of 300 ms: only renewals keep the keys. */
	private void competitorIsRefusedForTenLeases(List<String> keys) throws InterruptedException {
		long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
		while (System.nanoTime() < until) {
			for (String key : keys) {
				assertThat(this.competitor.tryAcquire(key, Duration.ZERO)).as(key).isEmpty();
			}
			Thread.sleep(100);
		}
	}

}

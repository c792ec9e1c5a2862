package io.distlock.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.distlock.core.LockLease;
import io.distlock.core.LockLostException;
import io.distlock.core.LockRequest;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.test.process.ChildJvm;
import io.distlock.test.process.LockHolderMain;
import io.distlock.test.redis.RedisServerExtension;
import io.distlock.test.report.FaultReport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * T03, T04 and T05: a crashed holder frees the lock within its lease; a stale holder can neither
 * delete nor extend its successor's lock.
 */
@Tag("fault")
@Timeout(300)
class ExpiryFaultIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@Test
	void t03AKilledHolderBlocksOthersAtMostForItsLease() throws Exception {
		long lease = 2_000;
		List<Long> blocked = new ArrayList<>();
		try (RedisLockRegistry waiter = new RedisLockRegistry(redis.server().connectionFactory())) {
			for (int run = 0; run < 10; run++) {
				String key = "t03:" + UUID.randomUUID();
				try (ChildJvm holder = ChildJvm.start(LockHolderMain.class, Integer.toString(redis.server().port()), key,
						Long.toString(lease))) {
					holder.awaitLine("ACQUIRED", 30, TimeUnit.SECONDS);
					Thread.sleep(1_000);
					// What the key had left when asked, just before the kill: no waiter may get it sooner.
					long askedAt = System.nanoTime();
					long ttl = redis.server().template().getExpire("distlock:{" + key + "}", TimeUnit.MILLISECONDS);
					assertThat(ttl).as("the holder's key before the kill").isPositive();
					holder.kill();
					long killedAt = System.nanoTime();
					try (LockLease next = waiter.acquire(key, Duration.ofSeconds(5))) {
						long now = System.nanoTime();
						blocked.add(TimeUnit.NANOSECONDS.toMillis(now - killedAt));
						// PTTL is in whole milliseconds, and Redis expires by its own clock: 20 ms of slack.
						assertThat(TimeUnit.NANOSECONDS.toMillis(now - askedAt)).as("granted after the TTL it had")
							.isGreaterThanOrEqualTo(ttl - 20);
					}
				}
			}
		}
		// Freed at the lease's end at the latest (the kill may come just after a renewal), never
		// before the key's own TTL ran out (checked above; the holder's "ACQUIRED" line can reach
		// this JVM late on a loaded machine, so the time since the grant is not known here).
		assertThat(blocked).hasSize(10).allSatisfy((millis) -> assertThat(millis).isLessThanOrEqualTo(lease + 250));
		FaultReport.row("T03", "holder JVM killed (kill -9), lease 2 s", "the lock frees itself at its lease end",
				"10/10 freed after " + blocked.stream().mapToLong(Long::longValue).min().orElse(0) + " to "
						+ blocked.stream().mapToLong(Long::longValue).max().orElse(0) + " ms");
	}

	@Test
	void t04AStaleUnlockNeverDeletesTheSuccessorsLock() throws Exception {
		int runs = 100;
		try (RedisLockRegistry first = new RedisLockRegistry(redis.server().connectionFactory());
				RedisLockRegistry second = new RedisLockRegistry(redis.server().connectionFactory())) {
			for (int run = 0; run < runs; run++) {
				String key = "t04:" + UUID.randomUUID();
				LockLease stale = first.acquire(LockRequest.of(key).leaseTime(Duration.ofMillis(100)));
				Thread.sleep(160);
				// The stale lease has expired, so the key is free: the wait only absorbs a slow
				// answer on a loaded machine (a wait of zero allows the store 150 ms).
				LockLease successor = second.acquire(key, Duration.ofSeconds(2));
				long start = System.nanoTime();
				assertThatExceptionOfType(LockLostException.class).isThrownBy(stale::release);
				assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(500);
				assertThat(redis.server().template().opsForValue().get("distlock:{" + key + "}")).startsWith(
						second.getSettings().instanceId());
				assertThat(redis.server().template().getExpire("distlock:{" + key + "}", TimeUnit.MILLISECONDS)).isPositive();
				successor.release();
			}
		}
		FaultReport.row("T04", "lease 100 ms expired while held, successor holds",
				"the stale unlock throws LockLostException; the successor keeps its lock", runs + "/" + runs);
	}

	@Test
	void t05AStaleRenewalNeverResurrectsOrSteals() throws Exception {
		try (RedisLockRegistry first = RedisLockRegistry.builder(redis.server().connectionFactory())
			.leaseTime(Duration.ofMillis(600))
			.build(); RedisLockRegistry second = new RedisLockRegistry(redis.server().connectionFactory())) {
			// With a successor holding: the stale holder's renewal must not touch its lease.
			String key = "t05:" + UUID.randomUUID();
			// The key is free: the wait only absorbs a first reply that comes back too late to
			// leave enough of the 600 ms lease on a loaded machine.
			LockLease stale = first.acquire(key, Duration.ofSeconds(5));
			CountDownLatch lost = new CountDownLatch(1);
			stale.onLost((ex) -> lost.countDown());
			redis.server().command("PEXPIRE", "distlock:{" + key + "}", "1");
			LockLease successor = second.acquire(key, Duration.ofSeconds(1));
			long ttlBefore = redis.server().template().getExpire("distlock:{" + key + "}", TimeUnit.MILLISECONDS);
			assertThat(lost.await(2, TimeUnit.SECONDS)).as("the stale holder is told").isTrue();
			long ttlAfter = redis.server().template().getExpire("distlock:{" + key + "}", TimeUnit.MILLISECONDS);
			assertThat(ttlAfter).isBetween(ttlBefore - 1_000, ttlBefore);
			assertThat(redis.server().template().opsForValue().get("distlock:{" + key + "}"))
				.startsWith(second.getSettings().instanceId());
			successor.release();
			assertThatExceptionOfType(LockLostException.class).isThrownBy(stale::release);

			// With nobody holding: the renewal must not re-create the key.
			String alone = "t05-alone:" + UUID.randomUUID();
			LockLease orphan = first.acquire(alone, Duration.ZERO);
			CountDownLatch orphanLost = new CountDownLatch(1);
			orphan.onLost((ex) -> orphanLost.countDown());
			redis.server().command("PEXPIRE", "distlock:{" + alone + "}", "1");
			assertThat(orphanLost.await(2, TimeUnit.SECONDS)).isTrue();
			assertThat(redis.server().template().hasKey("distlock:{" + alone + "}")).isFalse();
			assertThatExceptionOfType(LockLostException.class).isThrownBy(orphan::release);
		}
		FaultReport.row("T05", "lease expired early; renewal after it",
				"renewal refused, LOST signalled; the successor's TTL untouched; no key re-created", "2/2 cases");
	}

}

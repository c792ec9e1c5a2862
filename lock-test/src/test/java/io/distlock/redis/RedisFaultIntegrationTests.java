package io.distlock.redis;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.distlock.core.DistLock;
import io.distlock.core.LockAcquisitionException;
import io.distlock.core.LockLease;
import io.distlock.core.LockLostException;
import io.distlock.detector.LostUpdateCounter;
import io.distlock.detector.Workers;
import io.distlock.test.process.ChildJvm;
import io.distlock.test.process.LockHolderMain;
import io.distlock.test.redis.RedisServerExtension;
import io.distlock.test.registry.LockRegistries;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The engine under the faults of issue 2: a holder killed with SIGKILL, Redis restarted empty
 * while a lock is held, Redis unreachable, Redis frozen; and 1,000 virtual threads on one key.
 * The fault tests are tagged {@code fault} and run in {@code ./mvnw -Pfaults verify}; the
 * virtual-thread tests run in the default build (on a JDK 21+).
 */
@Timeout(90)
class RedisFaultIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockRegistries registries = LockRegistries.on(redis);

	@Test
	@Tag("fault")
	void killedHolderJvmFreesTheLockWithinItsLease() throws Exception {
		long leaseMillis = 2_000;
		RedisLockRegistry waiter = this.registries.redis();
		String key = this.registries.randomKey();
		try (ChildJvm holder = ChildJvm.start(LockHolderMain.class, Integer.toString(redis.server().port()), key,
				Long.toString(leaseMillis))) {
			long token = Long.parseLong(holder.awaitLine("ACQUIRED", 30, TimeUnit.SECONDS).substring(9));
			// Let the holder's watchdog renew a few times, then crash it: no finally, no unlock.
			Thread.sleep(1_000);
			assertThat(waiter.tryAcquire(key, Duration.ZERO)).isEmpty();
			holder.kill();
			long killedAt = System.nanoTime();
			try (LockLease lease = waiter.acquire(key, Duration.ofSeconds(5))) {
				long blockedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
				// The key lived on for what was left of its last renewal, never past one lease.
				assertThat(blockedMillis).isBetween(leaseMillis / 3, leaseMillis + 500);
				assertThat(lease.fencingToken()).isGreaterThan(token);
			}
		}
	}

	@Test
	@Tag("fault")
	void redisRestartWhileHeldSignalsLostOnceAndANewLockRenewsNormally() throws Exception {
		RedisLockRegistry registry = this.registries.redis((builder) -> builder.leaseTime(Duration.ofSeconds(1)));
		String key = this.registries.randomKey();
		DistLock lock = registry.obtain(key);
		lock.lock();
		AtomicInteger lostCount = new AtomicInteger();
		CompletableFuture<Long> lostAt = new CompletableFuture<>();
		lock.lease().onLost((ex) -> {
			lostCount.incrementAndGet();
			lostAt.complete(System.nanoTime());
		});
		long killedAt = System.nanoTime();
		redis.server().kill();
		Thread.sleep(500);
		redis.server().restart();
		long detectedMillis = TimeUnit.NANOSECONDS.toMillis(lostAt.get(5, TimeUnit.SECONDS) - killedAt);
		assertThat(detectedMillis).isLessThanOrEqualTo(1_000 + 333 + 250);
		assertThat(lock.isHeldByCurrentThread()).isFalse();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::unlock)
			.withMessageContaining("may have been changed concurrently");
		Thread.sleep(500);
		assertThat(lostCount).hasValue(1);

		RedisLockRegistry competitor = this.registries.redis();
		AtomicInteger lostAgain = new AtomicInteger();
		try (LockLease lease = registry.acquire(key, Duration.ofSeconds(5))) {
			lease.onLost((ex) -> lostAgain.incrementAndGet());
			long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
			while (System.nanoTime() < until) {
				assertThat(competitor.tryAcquire(key, Duration.ZERO)).isEmpty();
				Thread.sleep(100);
			}
			assertThat(lease.isValid()).isTrue();
		}
		assertThat(lostAgain).hasValue(0);
	}

	@Test
	@Tag("fault")
	void unreachableRedisGivesAClearExceptionNeverAFalseAcquire() throws Exception {
		LettuceConnectionFactory factory = redis.newConnectionFactory(Duration.ofMillis(500));
		RedisLockRegistry registry = this.registries.add(RedisLockRegistry.builder(factory).build());
		String key = this.registries.randomKey();
		registry.acquire(key, Duration.ZERO).release();
		redis.server().kill();
		long start = System.nanoTime();
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> registry.acquire(key, Duration.ofSeconds(2)))
			.withMessageStartingWith("Could not acquire lock for key '" + key + "': the lock store failed")
			.withCauseInstanceOf(org.springframework.dao.DataAccessException.class);
		assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(2_000);
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> registry.obtain(key).tryLock(Duration.ofSeconds(1)));
		assertThat(registry.localKeyCount()).isZero();
	}

	@Test
	@Tag("fault")
	void frozenRedisMakesTheHolderLostAtItsValidityDeadline() throws Exception {
		LettuceConnectionFactory factory = redis.newConnectionFactory(Duration.ofSeconds(5));
		RedisLockRegistry registry = this.registries.add(RedisLockRegistry.builder(factory)
			.leaseTime(Duration.ofSeconds(1))
			.build());
		String key = this.registries.randomKey();
		LockLease lease = registry.acquire(key, Duration.ZERO);
		CompletableFuture<Long> lostAt = new CompletableFuture<>();
		lease.onLost((ex) -> lostAt.complete(System.nanoTime()));
		long pausedAt = System.nanoTime();
		redis.server().pause();
		try {
			// The renewal hangs on the frozen server (5 s timeout), yet the deadline is kept.
			long detectedMillis = TimeUnit.NANOSECONDS.toMillis(lostAt.get(5, TimeUnit.SECONDS) - pausedAt);
			assertThat(detectedMillis).isLessThanOrEqualTo(1_000 + 250);
			assertThat(lease.isValid()).isFalse();
		}
		finally {
			redis.server().resume();
		}
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lease::release);
	}

	@Test
	@EnabledForJreRange(min = JRE.JAVA_21)
	void thousandVirtualThreadsOnOneKeyKeepAnExactCount() throws Exception {
		RedisLockRegistry registry = this.registries.redis();
		String key = this.registries.randomKey();
		assertThat(countOnVirtualThreads(() -> registry.obtain(key))).isEqualTo(1_000);
		assertThat(registry.localKeyCount()).isZero();
	}

	@Test
	@EnabledForJreRange(min = JRE.JAVA_21)
	void negativeControlThousandVirtualThreadsWithoutTheLockLoseUpdates() throws Exception {
		assertThat(countOnVirtualThreads(() -> null)).isLessThan(1_000);
	}

	/**
	 * Each of 1,000 virtual threads increments the lost-update counter once under the lock the
	 * supplier gives, or without a lock when it gives {@code null}.
	 */
	private int countOnVirtualThreads(java.util.function.Supplier<DistLock> locks) throws Exception {
		LostUpdateCounter counter = new LostUpdateCounter();
		// Through reflection: the module compiles for Java 17, the test runs on 21 and later.
		Method factory = java.util.concurrent.Executors.class.getMethod("newVirtualThreadPerTaskExecutor");
		Workers.runAll((ExecutorService) factory.invoke(null), 1_000, (worker) -> counter.increment(locks.get()));
		return counter.value();
	}

}

package io.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.distlock.core.DistLock;
import io.distlock.core.LockLease;
import io.distlock.core.LockRequest;
import io.distlock.core.WaitStrategy;
import io.distlock.detector.GrantLog;
import io.distlock.detector.Workers;
import io.distlock.test.redis.RedisServerExtension;
import io.distlock.test.registry.LockRegistries;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Local handoff (lock cohorting) on Redis: a contended lock passes between threads of one
 * registry without a round trip, within its limits, with a larger fencing token every time, and
 * another registry (another process) still gets its turn.
 * <p>
 * The grant log tells a handoff from a Redis grant by the token: a handoff adds one, while Redis
 * mints the server time in microseconds, which moves on by far more between two grants that
 * are a section apart.
 */
@Timeout(60)
class LocalHandoffIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockRegistries registries = LockRegistries.on(redis);

	@Test
	void tokensGrowWithEveryGrantAcrossHandoffsAndRedisGrantsOfTwoProcesses() throws Exception {
		RedisLockRegistry first = this.registries.redis();
		RedisLockRegistry second = this.registries.redis();
		String key = this.registries.randomKey();
		GrantLog log = new GrantLog();
		hammer(log, Duration.ofMillis(1_500), Duration.ofNanos(200_000), first.obtain(key), first.obtain(key),
				first.obtain(key), second.obtain(key), second.obtain(key), second.obtain(key));

		assertThat(log.size()).isGreaterThan(200);
		assertThat(log.firstDecrease()).as("grant whose token is not larger than its predecessor's").isEmpty();
		assertThat(log.handoffs()).as("local handoffs").isGreaterThan(log.size() / 4);
		assertThat(log.runs()).as("Redis grants").isGreaterThan(10);
		assertThat(log.grantsByWorker()).allSatisfy((worker, grants) -> assertThat(grants).isPositive());
	}

	@Test
	void noMoreHandoffsInARowThanTheLimit() throws Exception {
		RedisLockRegistry registry = this.registries.redis((builder) -> builder
			.localHandoff(3, Duration.ofSeconds(10)));
		String key = this.registries.randomKey();
		GrantLog log = new GrantLog();
		hammer(log, Duration.ofMillis(800), Duration.ofNanos(200_000), registry.obtain(key), registry.obtain(key),
				registry.obtain(key), registry.obtain(key));

		assertThat(log.firstDecrease()).isEmpty();
		assertThat(log.longestRun()).as("grants in a row without Redis: one Redis grant and 3 handoffs")
			.isEqualTo(4);
	}

	@Test
	void noHandoffLaterThanTheTimeLimitAfterRedisGranted() throws Exception {
		// Sections of at least 10 ms against a 45 ms limit: a run can hand over at the releases
		// at 10, 20, 30 and 40 ms at most, so it never has more than 5 grants.
		RedisLockRegistry registry = this.registries.redis((builder) -> builder
			.localHandoff(1_000, Duration.ofMillis(45)));
		String key = this.registries.randomKey();
		GrantLog log = new GrantLog();
		hammer(log, Duration.ofMillis(1_500), Duration.ofMillis(10), registry.obtain(key), registry.obtain(key),
				registry.obtain(key));

		assertThat(log.firstDecrease()).isEmpty();
		assertThat(log.longestRun()).isBetween(2, 5);
	}

	@Test
	void zeroHandoffsTurnsLocalHandoffOff() throws Exception {
		RedisLockRegistry registry = this.registries.redis((builder) -> builder.localHandoff(0, Duration.ofSeconds(1)));
		String key = this.registries.randomKey();
		GrantLog log = new GrantLog();
		hammer(log, Duration.ofMillis(500), Duration.ofNanos(200_000), registry.obtain(key), registry.obtain(key),
				registry.obtain(key));

		assertThat(log.size()).isGreaterThan(20);
		assertThat(log.handoffs()).isZero();
	}

	@Test
	void anotherProcessWaitsNoLongerThanTheLimitsAllow() throws Exception {
		// Limits of 8 handoffs or 100 ms: the other process waits about 10 ms; 500 ms leaves
		// room for a slow machine and still fails the negative control below.
		assertThat(longestWaitOfAnotherProcess(8, Duration.ofMillis(100))).isLessThan(500);
	}

	@Test
	void anotherPollingProcessWaitsNoLongerThanTheLimitsAllow() throws Exception {
		// With polling nobody is woken: the other process gets its turn only if it polls while
		// the lock is free, so the busy process holds back for a retry interval (100 ms) after a
		// checkpoint that found it waiting. A yield of 1 ms let it wait about a second.
		assertThat(longestWaitOfAnotherProcess(8, Duration.ofMillis(100), WaitStrategy.POLLING)).isLessThan(500);
	}

	@Test
	void negativeControlWithoutLimitsAnotherProcessStarves() throws Exception {
		// The same workload with limits too wide to matter: 1,000 handoffs of sections of at
		// least 1 ms keep the lock in the busy process for more than a second.
		assertThat(longestWaitOfAnotherProcess(1_000, Duration.ofSeconds(30))).isGreaterThanOrEqualTo(500);
	}

	@Test
	void aHandedOverGrantIsRenewedAndReleasedLikeAnyOther() throws Exception {
		RedisLockRegistry registry = this.registries.redis((builder) -> builder
			.leaseTime(Duration.ofMillis(600))
			.localHandoff(16, Duration.ofSeconds(5)));
		String key = this.registries.randomKey();
		DistLock lock = registry.obtain(key);
		lock.lock();
		long firstToken = lock.lease().fencingToken();
		ExecutorService executor = Executors.newSingleThreadExecutor();
		try {
			var handed = executor.submit(() -> {
				DistLock next = registry.obtain(key);
				next.lock();
				try {
					long token = next.lease().fencingToken();
					// Three leases long: only renewals keep it.
					Thread.sleep(1_800);
					return List.of(token, next.lease().isValid() ? 1L : 0L, next.lease().confirm() ? 1L : 0L);
				}
				finally {
					next.unlock();
				}
			});
			Thread.sleep(200);
			lock.unlock();
			List<Long> seen = handed.get(10, TimeUnit.SECONDS);
			assertThat(seen.get(0)).as("token of the handed-over grant").isEqualTo(firstToken + 1);
			assertThat(seen.get(1)).as("valid after three leases").isEqualTo(1L);
			assertThat(seen.get(2)).as("confirmed in Redis").isEqualTo(1L);
		}
		finally {
			executor.shutdownNow();
		}
		assertThat(redis.server().template().hasKey("distlock:{" + key + "}")).isFalse();
		assertThat(Long.parseLong(redis.server().template().opsForValue().get("distlock:{" + key + "}:fence")))
			.as("the release recorded the handed-over token").isEqualTo(firstToken + 1);
		try (LockLease next = registry.acquire(key, Duration.ZERO)) {
			assertThat(next.fencingToken()).isGreaterThan(firstToken + 1);
		}
	}

	/**
	 * A handed-over grant released with {@code holdAtLeast} is kept in Redis until then, not
	 * deleted, and still records its token in the fence key: if the server's clock stepped back
	 * meanwhile, the next grant's token would otherwise repeat a handed-over one.
	 */
	@Test
	void aHandedOverGrantKeptForHoldAtLeastRecordsItsToken() throws Exception {
		RedisLockRegistry registry = this.registries.redis((builder) -> builder
			.localHandoff(16, Duration.ofSeconds(5)));
		String key = this.registries.randomKey();
		LockLease first = registry.acquire(key, Duration.ZERO);
		// Queued at the gate before acquireAsync returns: the release below hands the grant over.
		CompletableFuture<LockLease> waiting = registry
			.acquireAsync(LockRequest.of(key).waitTime(Duration.ofSeconds(5)))
			.toCompletableFuture();
		first.release();
		LockLease handed = waiting.get(5, TimeUnit.SECONDS);
		assertThat(handed.fencingToken()).as("handed over").isEqualTo(first.fencingToken() + 1);
		handed.release(Duration.ofSeconds(2));
		assertThat(redis.server().template().hasKey("distlock:{" + key + "}")).as("kept for holdAtLeast").isTrue();
		assertThat(Long.parseLong(redis.server().template().opsForValue().get("distlock:{" + key + "}:fence")))
			.as("the release recorded the handed-over token").isGreaterThanOrEqualTo(handed.fencingToken());
	}

	/**
	 * Run one registry's four threads in a tight loop on one key for two seconds, and one thread
	 * of another registry beside them.
	 * @return the longest wait of the other registry's thread, in milliseconds
	 */
	private long longestWaitOfAnotherProcess(int maxHandoffs, Duration maxTime) throws Exception {
		return longestWaitOfAnotherProcess(maxHandoffs, maxTime, WaitStrategy.PUB_SUB);
	}

	private long longestWaitOfAnotherProcess(int maxHandoffs, Duration maxTime, WaitStrategy waitStrategy)
			throws Exception {
		RedisLockRegistry busy = this.registries.redis((builder) -> builder
			.localHandoff(maxHandoffs, maxTime)
			.waitStrategy(waitStrategy));
		RedisLockRegistry other = this.registries.redis((builder) -> builder.waitStrategy(waitStrategy));
		String key = this.registries.randomKey();
		GrantLog log = new GrantLog();
		hammer(log, Duration.ofSeconds(2), Duration.ofMillis(1), busy.obtain(key), busy.obtain(key), busy.obtain(key),
				busy.obtain(key), other.obtain(key));
		assertThat(log.firstDecrease()).isEmpty();
		return log.longestWaitMillis(4);
	}

	/**
	 * Lock, log the grant, run the section and unlock in a loop on every lock's own thread until
	 * the time is up.
	 */
	private static void hammer(GrantLog log, Duration duration, Duration section, DistLock... locks)
			throws Exception {
		long until = System.nanoTime() + duration.toNanos();
		Workers.runAll(Executors.newFixedThreadPool(locks.length), locks.length, (worker) -> {
			DistLock lock = locks[worker];
			while (System.nanoTime() < until) {
				long waitFrom = System.nanoTime();
				lock.lock();
				try {
					log.granted(worker, lock.lease().fencingToken(), System.nanoTime() - waitFrom);
					GrantLog.work(section);
				}
				finally {
					lock.unlock();
				}
			}
		});
	}

}

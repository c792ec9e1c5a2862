package io.distlock.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.core.StringRedisTemplate;

import io.distlock.core.LockLease;
import io.distlock.redis.EvictionPolicy;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.test.redis.RedisServer;
import io.distlock.test.report.FaultReport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * T22: memory pressure on a Redis limited to 2 MB while 10 locks are held. Under an evicting
 * policy the lock keys go and every holder is told at its next renewal; under
 * {@code noeviction} the writes fail instead and every lock survives. The startup check that
 * reports the policy is tested with the auto-configuration.
 */
@Tag("fault")
@Timeout(120)
class EvictionFaultIntegrationTests {

	private static final Duration LEASE = Duration.ofSeconds(2);

	private static final Duration RENEWAL = Duration.ofMillis(667);

	private static final int LOCKS = 10;

	@Test
	void t22UnderVolatileTtlEvictedLocksAreReportedLostWithinARenewalInterval() throws Exception {
		// volatile-ttl evicts the keys closest to expiry first: the 2 s lock keys before the
		// hour-long junk, so the eviction hits the locks every time.
		try (RedisServer redis = RedisServer.start("--maxmemory", "2mb", "--maxmemory-policy", "volatile-ttl");
				RedisLockRegistry registry = registry(redis)) {
			assertThat(EvictionPolicy.read(redis.connectionFactory()).mayEvictLocks()).isTrue();
			ConcurrentMap<String, Long> lostAt = new ConcurrentHashMap<>();
			List<LockLease> leases = holdLocks(registry, lostAt);
			int refused = writeJunk(redis.template());
			long filledAt = System.nanoTime();
			assertThat(refused).as("writes refused under volatile-ttl").isZero();
			assertThat(redis.command("DBSIZE")).isNotEqualTo(":0");
			long deadline = filledAt + LEASE.toNanos();
			while (lostAt.size() < LOCKS && System.nanoTime() < deadline) {
				Thread.sleep(10);
			}
			assertThat(lostAt).as("holders told of the eviction").hasSize(LOCKS);
			long slowestMillis = lostAt.values().stream().mapToLong((at) -> at - filledAt).max().orElseThrow()
					/ 1_000_000;
			assertThat(slowestMillis).as("told within a renewal interval (and a tick) of the eviction")
				.isLessThanOrEqualTo(RENEWAL.toMillis() + 300);
			assertThat(leases).noneMatch(LockLease::isValid);
			FaultReport.row("T22", "maxmemory 2 MB, volatile-ttl; 10 locks held, 5 MB of hour-long keys written",
					"the lock keys are evicted first; every holder is told at its next renewal", lostAt.size() + "/"
							+ LOCKS + " LOST, the last " + slowestMillis + " ms after the writes ended (renewal interval "
							+ RENEWAL.toMillis() + " ms)");
		}
	}

	@Test
	void t22UnderNoEvictionTheWritesFailAndEveryLockSurvives() throws Exception {
		try (RedisServer redis = RedisServer.start("--maxmemory", "2mb", "--maxmemory-policy", "noeviction");
				RedisLockRegistry registry = registry(redis)) {
			assertThat(EvictionPolicy.read(redis.connectionFactory()).mayEvictLocks()).isFalse();
			ConcurrentMap<String, Long> lostAt = new ConcurrentHashMap<>();
			List<LockLease> leases = holdLocks(registry, lostAt);
			int refused = writeJunk(redis.template());
			assertThat(refused).as("writes refused with OOM").isPositive();
			// Three leases long: the locks live only if renewals go on under OOM.
			Thread.sleep(3 * LEASE.toMillis());
			assertThat(lostAt).isEmpty();
			assertThat(leases).allMatch(LockLease::isValid).allMatch(LockLease::confirm);
			FaultReport.row("T22 noeviction", "maxmemory 2 MB, noeviction; the same writes",
					"the writes fail with OOM; the locks are renewed and survive", refused + " of 5,000 writes refused; "
							+ LOCKS + "/" + LOCKS + " locks held for 3 leases, 0 LOST");
			leases.forEach(LockLease::release);
		}
	}

	private static RedisLockRegistry registry(RedisServer redis) {
		return RedisLockRegistry.builder(redis.connectionFactory()).leaseTime(LEASE).renewalInterval(RENEWAL).build();
	}

	private static List<LockLease> holdLocks(RedisLockRegistry registry, ConcurrentMap<String, Long> lostAt) {
		List<LockLease> leases = new ArrayList<>();
		for (int i = 0; i < LOCKS; i++) {
			String key = "t22:" + UUID.randomUUID();
			LockLease lease = registry.acquire(key, Duration.ZERO);
			lease.onLost((ex) -> lostAt.putIfAbsent(key, System.nanoTime()));
			leases.add(lease);
		}
		return leases;
	}

	/**
	 * Write 5 MB of keys that live an hour.
	 * @return how many writes Redis refused
	 */
	private static int writeJunk(StringRedisTemplate template) {
		String value = "x".repeat(1_000);
		int refused = 0;
		for (int i = 0; i < 5_000; i++) {
			try {
				template.opsForValue().set("junk:" + i, value, Duration.ofHours(1));
			}
			catch (RuntimeException ex) {
				assertThat(ex).hasStackTraceContaining("OOM");
				refused++;
			}
		}
		return refused;
	}

}

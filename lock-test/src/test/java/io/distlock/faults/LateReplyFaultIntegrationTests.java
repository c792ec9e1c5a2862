package io.distlock.faults;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.distlock.core.LockLease;
import io.distlock.core.LockRequest;
import io.distlock.engine.RegistrySettings;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.test.network.FaultProxy;
import io.distlock.test.redis.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * T16: a reply that comes late must not yield a false acquisition. A proxy delays every chunk
 * both ways, so that one round trip takes 1.2 or 0.6 of the 1 s lease; Redis applies the
 * acquisition either way (a direct connection sees the key), but only the client knows how much
 * of the lease is left when the answer arrives.
 */
@Tag("fault")
@Timeout(120)
class LateReplyFaultIntegrationTests {

	private static final Duration LEASE = Duration.ofSeconds(1);

	private static RedisServer redis;

	@BeforeAll
	static void start() {
		redis = RedisServer.start();
	}

	@AfterAll
	static void stop() {
		redis.close();
	}

	@Test
	void t16AReplyLaterThanTheLeaseIsNotAnAcquisition() throws Exception {
		withSlowRegistry((proxy, registry) -> {
			String key = "t16-late-" + UUID.randomUUID();
			AtomicBoolean seenInRedis = watch(key);
			long scriptsBefore = redis.scriptCalls();
			proxy.latency(Duration.ofMillis(600));
			long start = System.nanoTime();
			Optional<LockLease> lease = registry.tryAcquire(LockRequest.of(key).waitTime(Duration.ZERO));
			long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
			proxy.latency(Duration.ZERO);
			assertThat(tookMillis).as("the reply came after the lease").isGreaterThanOrEqualTo(1_200);
			assertThat(seenInRedis).as("Redis applied the acquisition").isTrue();
			assertThat(lease).as("a grant whose lease ran out in flight").isEmpty();
			// The key may have expired on its own by now; the second script is the compare-delete.
			assertThat(redis.scriptCalls() - scriptsBefore).as("the acquisition and its give-back").isEqualTo(2);
			assertThat(redis.command("EXISTS", "distlock:{" + key + "}")).isEqualTo(":0");
			System.out.println("FAULT-REPORT | T16 | reply after 1.2 L (lease 1 s) | not acquired; compare-delete sent |"
					+ " returned empty after " + tookMillis + " ms (both round trips); give-back sent; key absent |");
		});
	}

	@Test
	void t16AReplyAfterPartOfTheLeaseGrantsOnlyWhatIsLeft() throws Exception {
		withSlowRegistry((proxy, registry) -> {
			String key = "t16-slow-" + UUID.randomUUID();
			proxy.latency(Duration.ofMillis(300));
			long start = System.nanoTime();
			try (LockLease lease = registry.acquire(LockRequest.of(key).waitTime(Duration.ZERO))) {
				long elapsed = System.nanoTime() - start;
				long expected = LEASE.toNanos() - elapsed - RegistrySettings.driftMargin(LEASE).toNanos();
				long remaining = lease.remaining().toNanos();
				assertThat(elapsed).as("one slow round trip").isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(600));
				assertThat(TimeUnit.NANOSECONDS.toMillis(remaining - expected)).as("validity = L - elapsed - drift")
					.isBetween(-10L, 10L);
				System.out.println("FAULT-REPORT | T16 | reply after 0.6 L (lease 1 s) | validity = L - elapsed - drift,"
						+ " ±10 ms | " + TimeUnit.NANOSECONDS.toMillis(remaining) + " ms left, expected "
						+ TimeUnit.NANOSECONDS.toMillis(expected) + " ms |");
				proxy.latency(Duration.ZERO);
			}
		});
	}

	private interface SlowRegistryTest {

		void run(FaultProxy proxy, RedisLockRegistry registry) throws Exception;

	}

	private static void withSlowRegistry(SlowRegistryTest test) throws Exception {
		try (FaultProxy proxy = FaultProxy.start(redis.host(), redis.port())) {
			LettuceConnectionFactory factory = new LettuceConnectionFactory(
					new RedisStandaloneConfiguration("127.0.0.1", proxy.port()),
					LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(10)).build());
			factory.afterPropertiesSet();
			factory.start();
			try (RedisLockRegistry registry = RedisLockRegistry.builder(factory).leaseTime(LEASE).build()) {
				// Connect and load the scripts before the latency: only the acquisition is slow.
				registry.acquire("t16-warm-up", Duration.ZERO).release();
				test.run(proxy, registry);
			}
			finally {
				factory.destroy();
			}
		}
	}

	/**
	 * Watch the key on a direct connection until it has been seen.
	 */
	private static AtomicBoolean watch(String key) {
		AtomicBoolean seen = new AtomicBoolean();
		Thread watcher = new Thread(() -> {
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
			while (!seen.get() && System.nanoTime() < deadline) {
				if (":1".equals(redis.command("EXISTS", "distlock:{" + key + "}"))) {
					seen.set(true);
				}
			}
		}, "t16-watcher");
		watcher.setDaemon(true);
		watcher.start();
		return seen;
	}

}

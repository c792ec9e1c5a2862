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
import io.distlock.detector.LeaseDeadline;
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
			FaultReport.row("T16 late", "reply after 1.2 L (lease 1 s)",
					"not an acquisition: Redis applied it, the client gives it back (compare-delete)",
					"returned empty after " + tookMillis + " ms (both round trips); give-back sent; key absent");
		});
	}

	@Test
	void t16AReplyAfterPartOfTheLeaseGrantsOnlyWhatIsLeft() throws Exception {
		withSlowRegistry((proxy, registry) -> {
			String key = "t16-slow-" + UUID.randomUUID();
			Duration oneWay = Duration.ofMillis(300);
			proxy.latency(oneWay);
			long start = System.nanoTime();
			try (LockLease lease = registry.acquire(LockRequest.of(key).waitTime(Duration.ZERO))) {
				long end = System.nanoTime();
				long deadline = LeaseDeadline.of(lease);
				proxy.latency(Duration.ZERO);
				long validity = LEASE.toNanos() - RegistrySettings.driftMargin(LEASE).toNanos();
				// validity = L - elapsed - drift, checked by two bounds that follow from the order of
				// events, not from a tolerance: the request left after 'start', so the deadline is at
				// least start + L - drift; the proxy held the request and then the reply for 300 ms
				// each, so the request left at least 600 ms before 'end', and the deadline is at most
				// end - 600 ms + L - drift. A grant counted from its reply is 600 ms past the upper
				// bound; one that subtracts the round trip twice is 600 ms below the lower one.
				long lowest = start + validity;
				long highest = end - 2 * oneWay.toNanos() + validity + LeaseDeadline.PRECISION_NANOS;
				assertThat(end - start).as("one slow round trip").isGreaterThanOrEqualTo(2 * oneWay.toNanos());
				assertThat(deadline).as("deadline no earlier than start + L - drift").isGreaterThanOrEqualTo(lowest);
				assertThat(deadline).as("deadline no later than end - 2 x 300 ms + L - drift").isLessThanOrEqualTo(highest);
				long expected = LEASE.toNanos() - (end - start) - RegistrySettings.driftMargin(LEASE).toNanos();
				long left = deadline - end;
				FaultReport.row("T16", "reply after 0.6 L (lease 1 s)",
						"a slow grant is valid only for what is left: L - elapsed - drift",
						TimeUnit.NANOSECONDS.toMillis(left) + " ms left against " + TimeUnit.NANOSECONDS.toMillis(expected)
								+ " ms expected; asserted between the bounds the send and the 2 x 300 ms delays give ("
								+ TimeUnit.NANOSECONDS.toMillis(lowest - end) + " to " + TimeUnit.NANOSECONDS.toMillis(highest - end)
								+ " ms)");
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

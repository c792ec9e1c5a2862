package io.distlock.faults;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.distlock.core.LockAcquisitionException;
import io.distlock.core.LockLease;
import io.distlock.core.LockRequest;
import io.distlock.detector.LeaseDeadline;
import io.distlock.engine.RegistrySettings;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.test.network.FaultProxy;
import io.distlock.test.redis.LoopbackConnectionFactories;
import io.distlock.test.redis.RedisServerExtension;
import io.distlock.test.report.FaultReport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

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

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@Test
	void t16AReplyLaterThanTheLeaseIsNotAnAcquisition() throws Exception {
		withSlowRegistry((proxy, registry) -> {
			String key = "t16-late-" + UUID.randomUUID();
			AtomicBoolean seenInRedis = watch(key);
			proxy.latency(Duration.ofMillis(600));
			long start = System.nanoTime();
			// The wait is the lease: the caller stops waiting for the store 150 ms after it, before
			// the 1.2 s round trip brings the grant back.
			Throwable failure = catchThrowable(
					() -> registry.tryAcquire(LockRequest.of(key).waitTime(LEASE)));
			long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
			assertThat(failure).as("never reported as acquired").isInstanceOf(LockAcquisitionException.class)
				.hasMessageContaining("the lock store failed");
			assertThat(tookMillis).as("the caller's wait bounds the call").isLessThan(LEASE.toMillis() + 500);
			await().atMost(Duration.ofSeconds(5)).untilTrue(seenInRedis);
			proxy.latency(Duration.ZERO);
			// The give-back follows the acquisition on the same connection, so it reaches Redis
			// after it: the key goes long before its lease would have ended it.
			await().atMost(Duration.ofSeconds(5))
				.until(() -> ":0".equals(redis.server().command("EXISTS", "distlock:{" + key + "}")));
			FaultReport.row("T16 late", "reply after 1.2 L (lease 1 s, wait 1 s)",
					"not an acquisition: the caller stops waiting at its wait time; Redis applied it and the client gives it back (compare-delete)",
					"failed after " + tookMillis + " ms; key absent once the reply arrived");
		});
	}

	@Test
	void t16AReplyAfterPartOfTheLeaseGrantsOnlyWhatIsLeft() throws Exception {
		withSlowRegistry((proxy, registry) -> {
			String key = "t16-slow-" + UUID.randomUUID();
			Duration oneWay = Duration.ofMillis(300);
			proxy.latency(oneWay);
			long start = System.nanoTime();
			// A wait longer than the slow round trip: the caller waits for the reply.
			try (LockLease lease = registry.acquire(LockRequest.of(key).waitTime(Duration.ofSeconds(2)))) {
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
		try (FaultProxy proxy = FaultProxy.start(redis.server().host(), redis.server().port())) {
			LettuceConnectionFactory factory = LoopbackConnectionFactories.start(proxy.port(), Duration.ofSeconds(10));
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
				if (":1".equals(redis.server().command("EXISTS", "distlock:{" + key + "}"))) {
					seen.set(true);
				}
			}
		}, "t16-watcher");
		watcher.setDaemon(true);
		watcher.start();
		return seen;
	}

}

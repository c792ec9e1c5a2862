package io.distlock.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.distlock.core.DistLock;
import io.distlock.core.LockAcquisitionException;
import io.distlock.detector.HandoffLatency;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.test.network.FaultProxy;
import io.distlock.test.redis.LoopbackConnectionFactories;
import io.distlock.test.redis.RedisServerExtension;
import io.distlock.test.report.FaultReport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * T17, T18 and T19: an acquisition applied but unanswered is never reported as acquired and is
 * given back; waiting holds no connection; a waiter whose notification is slow still acquires
 * soon after the release.
 */
@Tag("fault")
@Timeout(600)
class NetworkFaultIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@Test
	void t17AnAcquisitionWhoseReplyIsLostIsNeverReportedAndIsGivenBack() throws Exception {
		int runs = 50;
		int withinASecond = 0;
		long slowest = 0;
		try (FaultProxy proxy = FaultProxy.start(redis.server().host(), redis.server().port())) {
			LettuceConnectionFactory factory = LoopbackConnectionFactories.start(proxy.port(), Duration.ofMillis(200));
			try (RedisLockRegistry registry = RedisLockRegistry.builder(factory).leaseTime(Duration.ofSeconds(5)).build()) {
				for (int run = 0; run < runs; run++) {
					proxy.mode(FaultProxy.Mode.PASS);
					String key = "t17:" + UUID.randomUUID();
					// Connected again after the last run's reset: Lettuce reconnects with a backoff, and a
					// wait of zero allows the first attempt only 150 ms, so the warm-up waits for it. A
					// command of the warm-up may still time out (200 ms) on a loaded machine: try again.
					String warm = "warm:" + run;
					await().atMost(Duration.ofSeconds(30))
						.ignoreException(LockAcquisitionException.class)
						.until(() -> {
							registry.acquire(warm, Duration.ofSeconds(10)).release();
							return true;
						});
					proxy.mode(FaultProxy.Mode.DROP_REPLIES);
					Throwable failure = catchThrowable(() -> registry.acquire(key, Duration.ZERO));
					assertThat(failure).as("never reported as acquired").isInstanceOf(LockAcquisitionException.class);
					long failedAt = System.nanoTime();
					proxy.mode(FaultProxy.Mode.RESET);
					proxy.mode(FaultProxy.Mode.PASS);
					while (Boolean.TRUE.equals(redis.server().template().hasKey("distlock:{" + key + "}"))
							&& System.nanoTime() - failedAt < TimeUnit.SECONDS.toNanos(5)) {
						Thread.sleep(5);
					}
					long freedAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - failedAt);
					assertThat(redis.server().template().hasKey("distlock:{" + key + "}")).as("freed within the lease").isFalse();
					slowest = Math.max(slowest, freedAfter);
					if (freedAfter <= 1_000) {
						withinASecond++;
					}
				}
			}
			finally {
				factory.destroy();
			}
		}
		assertThat(withinASecond).isGreaterThanOrEqualTo(runs * 95 / 100);
		FaultReport.row("T17", "acquire applied, reply lost, connection reset",
				"LockAcquisitionException, never a false grant; the grant is given back in the background",
				runs + "/" + runs + " not reported; freed within 1 s in " + withinASecond + "/" + runs
						+ ", slowest " + slowest + " ms (lease 5 s)");
	}

	@Test
	void t18WaitingHoldsNoConnection() throws Exception {
		String key = "t18:" + UUID.randomUUID();
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger violations = new AtomicInteger();
		AtomicBoolean running = new AtomicBoolean(true);
		List<Long> sideLatencies = new ArrayList<>();
		AtomicInteger mostClients = new AtomicInteger();
		ExecutorService executor = Executors.newFixedThreadPool(65);
		try (RedisLockRegistry registry = new RedisLockRegistry(redis.server().connectionFactory())) {
			int clientsBefore = connectedClients();
			Future<?> side = executor.submit(() -> {
				while (running.get()) {
					long start = System.nanoTime();
					redis.server().template().opsForValue().get("side");
					sideLatencies.add(System.nanoTime() - start);
					mostClients.accumulateAndGet(connectedClients(), Math::max);
					Thread.sleep(10);
				}
				return null;
			});
			long start = System.nanoTime();
			List<Future<Boolean>> holders = new ArrayList<>();
			for (int i = 0; i < 64; i++) {
				holders.add(executor.submit(() -> {
					DistLock lock = registry.obtain(key);
					if (!lock.tryLock(Duration.ofSeconds(10))) {
						return false;
					}
					try {
						if (inside.incrementAndGet() != 1) {
							violations.incrementAndGet();
						}
						Thread.sleep(50);
						inside.decrementAndGet();
					}
					finally {
						lock.unlock();
					}
					return true;
				}));
			}
			int acquired = 0;
			for (Future<Boolean> holder : holders) {
				acquired += holder.get(60, TimeUnit.SECONDS) ? 1 : 0;
			}
			long totalMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
			running.set(false);
			side.get(5, TimeUnit.SECONDS);
			long[] sorted = sideLatencies.stream().mapToLong(Long::longValue).sorted().toArray();
			double p99 = sorted[(int) (sorted.length * 0.99)] / 1e6;
			assertThat(acquired).isEqualTo(64);
			assertThat(violations).hasValue(0);
			// The claim itself: 64 waiters open no connection of their own (the registry adds at
			// most its release-notification subscription), whatever the machine's load.
			assertThat(mostClients.get() - clientsBefore).as("connections added while 64 threads wait")
				.isLessThanOrEqualTo(1);
			// Latency bounds loose enough for a loaded 2-core machine (a side GET took 160 ms at p99
			// beside another build) that still catch a waiter blocking the shared connection for its
			// 10 s wait, or waiters polling with a backoff instead of queueing in the process.
			assertThat(p99).isLessThan(1_000);
			assertThat(totalMillis).isLessThan(64 * 50 * 2);
			FaultReport.row("T18", "64 threads tryLock(10 s) one key, 50 ms holds, a side GET every 10 ms",
					"waiters queue in the process and hold no connection",
					"64/64 acquired, 0 overlaps, " + totalMillis + " ms in all; side GET p99 " + String.format("%.1f", p99) + " ms");
		}
		finally {
			executor.shutdownNow();
		}
	}

	private static int connectedClients() {
		java.util.Properties clients = redis.server().template()
			.execute((org.springframework.data.redis.core.RedisCallback<java.util.Properties>) (connection) -> connection
				.serverCommands()
				.info("clients"));
		return Integer.parseInt(clients.getProperty("connected_clients"));
	}

	@Test
	void t19AWaiterWithASlowNotificationStillAcquiresSoonAfterTheRelease() throws Exception {
		try (FaultProxy proxy = FaultProxy.start(redis.server().host(), redis.server().port())) {
			LettuceConnectionFactory slow = LoopbackConnectionFactories.start(proxy.port(), Duration.ofSeconds(2));
			try (RedisLockRegistry holder = new RedisLockRegistry(redis.server().connectionFactory());
					RedisLockRegistry waiter = new RedisLockRegistry(slow)) {
				String key = "t19:" + UUID.randomUUID();
				proxy.latency(Duration.ofMillis(200));
				long after = HandoffLatency.millis(holder, waiter, key, Duration.ofMillis(1_500));
				// At most one retry interval (1 s) and a few 400 ms round trips, far from the 30 s wait.
				assertThat(after).isLessThanOrEqualTo(1_000 + 4 * 400);
				FaultReport.row("T19", "200 ms latency each way on the waiter's connections",
						"the waiter acquires soon after the release, not at its timeout",
						"acquired " + after + " ms after the release (round trip 400 ms, wait time 30 s)");
			}
			finally {
				slow.destroy();
			}
		}
	}


}

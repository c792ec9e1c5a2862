package io.distlock.faults;

import java.time.Duration;
import java.util.UUID;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.distlock.core.LockAcquisitionException;
import io.distlock.core.LockLease;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.test.network.FaultProxy;
import io.distlock.test.redis.LoopbackConnectionFactories;
import io.distlock.test.redis.RedisServer;
import io.distlock.test.report.FaultReport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * T36: a wait time is a hard bound. With the driver's command timeout at its default of 60s, an
 * acquisition that waits 2s fails with {@code LockAcquisitionException} about 2s later whether
 * Redis was killed, stopped, or cut off by a proxy that swallows traffic; the store check behind
 * the health indicator answers within its second; once the fault heals, locks work again without
 * a restart.
 * <p>
 * The engine bounds the last attempt at the wait time plus 150ms; the assertions allow 500ms
 * past the wait time, the rest being scheduling on a loaded 2-core machine. Before the bound,
 * every one of these calls took the command timeout: 60s.
 */
@Tag("fault")
@Timeout(300)
class BoundedWaitFaultIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(2);

	private static final Duration DRIVER_TIMEOUT = Duration.ofSeconds(60);

	private static final Duration ALLOWED = WAIT.plusMillis(500);

	private static final Duration CHECK_ALLOWED = Duration.ofMillis(1_500);

	@Test
	void t36AWaitTimeBoundsTheCallWhenRedisIsKilled() {
		try (RedisServer redis = RedisServer.start()) {
			LettuceConnectionFactory factory = redis.newConnectionFactory(DRIVER_TIMEOUT);
			try (RedisLockRegistry registry = RedisLockRegistry.builder(factory).build()) {
				warmUp(registry);
				redis.kill();
				measure("T36 kill", "redis-server SIGKILLed", registry);
				redis.restart();
				recovers(registry);
			}
			finally {
				factory.destroy();
			}
		}
	}

	@Test
	void t36AWaitTimeBoundsTheCallWhenRedisIsStopped() {
		try (RedisServer redis = RedisServer.start()) {
			LettuceConnectionFactory factory = redis.newConnectionFactory(DRIVER_TIMEOUT);
			try (RedisLockRegistry registry = RedisLockRegistry.builder(factory).build()) {
				warmUp(registry);
				redis.pause();
				try {
					measure("T36 stop", "redis-server SIGSTOPped", registry);
				}
				finally {
					redis.resume();
				}
				recovers(registry);
			}
			finally {
				factory.destroy();
			}
		}
	}

	@Test
	void t36AWaitTimeBoundsTheCallWhenTheNetworkSwallowsTraffic() {
		try (RedisServer redis = RedisServer.start(); FaultProxy proxy = FaultProxy.start(redis.host(), redis.port())) {
			LettuceConnectionFactory factory = LoopbackConnectionFactories.start(proxy.port(), DRIVER_TIMEOUT);
			try (RedisLockRegistry registry = RedisLockRegistry.builder(factory).build()) {
				warmUp(registry);
				proxy.mode(FaultProxy.Mode.BLACKHOLE);
				try {
					measure("T36 black hole", "proxy holds traffic back both ways", registry);
				}
				finally {
					proxy.mode(FaultProxy.Mode.RESET);
					proxy.mode(FaultProxy.Mode.PASS);
				}
				recovers(registry);
			}
			finally {
				factory.destroy();
			}
		}
	}

	private static void measure(String test, String fault, RedisLockRegistry registry) {
		long start = System.nanoTime();
		Throwable failure = catchThrowable(() -> registry.acquire("t36:" + UUID.randomUUID(), WAIT));
		Duration took = Duration.ofNanos(System.nanoTime() - start);
		assertThat(failure).isInstanceOf(LockAcquisitionException.class)
			.hasMessageContaining("the lock store failed")
			.hasCauseInstanceOf(RuntimeException.class);
		assertThat(took).as("acquire(%s) against a %s store", WAIT, fault).isLessThan(ALLOWED);
		long checkStart = System.nanoTime();
		Throwable checkFailure = catchThrowable(registry::checkStore);
		Duration checkTook = Duration.ofNanos(System.nanoTime() - checkStart);
		assertThat(checkFailure).as("the store check fails").isNotNull();
		assertThat(checkTook).as("the store check behind the health indicator").isLessThan(CHECK_ALLOWED);
		FaultReport.row(test, fault + "; acquire with a 2 s wait, driver timeout 60 s",
				"LockAcquisitionException naming the store failure; the store check fails; locks work again after healing",
				"acquire failed after " + took.toMillis() + " ms, store check after " + checkTook.toMillis() + " ms");
	}

	private static void warmUp(RedisLockRegistry registry) {
		registry.acquire("t36:warm:" + UUID.randomUUID(), Duration.ZERO).release();
		registry.checkStore();
	}

	private static void recovers(RedisLockRegistry registry) {
		await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).ignoreExceptions().until(() -> {
			registry.checkStore();
			LockLease lease = registry.acquire("t36:after:" + UUID.randomUUID(), Duration.ofSeconds(1));
			lease.release();
			return true;
		});
	}


}

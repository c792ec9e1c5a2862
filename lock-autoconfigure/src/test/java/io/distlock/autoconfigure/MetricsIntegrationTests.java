package io.distlock.autoconfigure;

import java.time.Duration;
import java.util.Optional;

import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import io.distlock.annotation.DistributedLock;
import io.distlock.annotation.OnFailure;
import io.distlock.core.LockAcquisitionException;
import io.distlock.core.LockLease;
import io.distlock.core.LockLostException;
import io.distlock.core.LockRegistry;
import io.distlock.core.LockRequest;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Every meter and every outcome tag docs/operations.md lists, each produced by a real
 * scenario against a real {@code redis-server}: {@code distlock.acquire} (acquired, timeout,
 * error, unreplicated), {@code distlock.held}, {@code distlock.active}, {@code distlock.renewal}
 * (renewed, failed), {@code distlock.lost}, {@code distlock.release} (released, lost, failed) and
 * {@code distlock.fallback} (skip, fallback). Counts are exact, so a meter recorded under the
 * wrong tag fails too.
 */
@Timeout(60)
class MetricsIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private RedisLockRegistry other;

	private ApplicationContextRunner runner() {
		return DistlockRunners.withRedisAndMetrics(redis.server())
			.withPropertyValues("spring.data.redis.timeout=200ms")
			.withBean("jobs", Jobs.class);
	}

	@AfterEach
	void closeOtherInstance() {
		if (this.other != null) {
			this.other.close();
		}
	}

	@Test
	void aGrantRecordsAcquiredActiveHeldAndReleased() {
		runner().run((context) -> {
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			LockLease lease = registry(context).acquire(LockRequest.of("m:grant").name("m.grant"));
			assertThat(meters.get("distlock.active").tag("lock.name", "m.grant").longTaskTimer().activeTasks())
				.as("held now").isEqualTo(1);
			lease.release();
			assertThat(meters.get("distlock.active").tag("lock.name", "m.grant").longTaskTimer().activeTasks())
				.as("held after the release").isZero();
			assertThat(count(meters, "distlock.acquire", "m.grant", "acquired")).isEqualTo(1);
			assertThat(meters.get("distlock.held").tag("lock.name", "m.grant").timer().count()).isEqualTo(1);
			assertThat(count(meters, "distlock.release", "m.grant", "released")).isEqualTo(1);
			assertThat(meters.find("distlock.release").tag("outcome", "lost").counter()).isNull();
			assertThat(meters.find("distlock.lost").counter()).isNull();
		});
	}

	@Test
	void aLockHeldElsewhereRecordsATimeout() {
		runner().run((context) -> {
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			try (LockLease held = otherInstance().acquire("m:busy", Duration.ZERO)) {
				assertThat(registry(context).tryAcquire(LockRequest.of("m:busy").name("m.busy").waitTime(Duration.ofMillis(50))))
					.isEmpty();
			}
			assertThat(count(meters, "distlock.acquire", "m.busy", "timeout")).isEqualTo(1);
			assertThat(meters.find("distlock.acquire").tag("lock.name", "m.busy").tag("outcome", "acquired").timer())
				.isNull();
		});
	}

	@Test
	void anUnreachableStoreRecordsAnError() {
		runner().run((context) -> {
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			LockRegistry registry = registry(context);
			registry.acquire("m:warm", Duration.ZERO).release();
			redis.server().kill();
			assertThatExceptionOfType(LockAcquisitionException.class)
				.isThrownBy(() -> registry.acquire(LockRequest.of("m:down").name("m.down")));
			assertThat(count(meters, "distlock.acquire", "m.down", "error")).isEqualTo(1);
		});
	}

	@Test
	void aGrantTheReplicasDoNotAcknowledgeRecordsUnreplicated() {
		// A standalone server has no replica: the grant is given back as unacknowledged.
		runner().withPropertyValues("distlock.replica-acknowledgement.replicas=1",
				"distlock.replica-acknowledgement.timeout=50ms")
			.run((context) -> {
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				assertThatExceptionOfType(LockAcquisitionException.class)
					.isThrownBy(() -> registry(context).acquire(LockRequest.of("m:ack").name("m.ack")));
				assertThat(count(meters, "distlock.acquire", "m.ack", "unreplicated")).isEqualTo(1);
				assertThat(meters.find("distlock.acquire").tag("outcome", "error").timer()).isNull();
			});
	}

	@Test
	void aHeldLockRecordsItsRenewals() {
		runner().withPropertyValues("distlock.lease-time=600ms").run((context) -> {
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			try (LockLease lease = registry(context).acquire(LockRequest.of("m:renew").name("m.renew"))) {
				await().atMost(Duration.ofSeconds(5))
					.until(() -> meters.find("distlock.renewal").tag("outcome", "renewed").counter() != null
							&& count(meters, "distlock.renewal", "m.renew", "renewed") >= 2);
			}
			assertThat(meters.find("distlock.renewal").tag("outcome", "failed").counter()).isNull();
		});
	}

	@Test
	void aFrozenStoreRecordsFailedRenewalsTheLossAndALostRelease() {
		runner().withPropertyValues("distlock.lease-time=900ms").run((context) -> {
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			LockLease lease = registry(context).acquire(LockRequest.of("m:frozen").name("m.frozen"));
			redis.server().pause();
			try {
				await().atMost(Duration.ofSeconds(5))
					.until(() -> meters.find("distlock.lost").tag("lock.name", "m.frozen").counter() != null);
			}
			finally {
				redis.server().resume();
			}
			assertThat(count(meters, "distlock.renewal", "m.frozen", "failed")).isGreaterThanOrEqualTo(1);
			assertThat(meters.get("distlock.lost").tag("lock.name", "m.frozen").counter().count()).isEqualTo(1);
			assertThatExceptionOfType(LockLostException.class).isThrownBy(lease::release);
			assertThat(count(meters, "distlock.release", "m.frozen", "lost")).isEqualTo(1);
			assertThat(meters.find("distlock.release").tag("outcome", "released").counter()).isNull();
		});
	}

	@Test
	void aReleaseTheStoreCannotAnswerRecordsFailed() {
		runner().withPropertyValues("distlock.lease-time=30s").run((context) -> {
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			LockLease lease = registry(context).acquire(LockRequest.of("m:gone").name("m.gone"));
			redis.server().kill();
			// The work is done: a release the store cannot confirm is logged and counted, not thrown.
			lease.release();
			assertThat(count(meters, "distlock.release", "m.gone", "failed")).isEqualTo(1);
			assertThat(meters.find("distlock.lost").counter()).isNull();
		});
	}

	@Test
	void callsThatDidNotGetTheirLockRecordSkipAndFallback() {
		runner().run((context) -> {
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			Jobs jobs = context.getBean(Jobs.class);
			try (LockLease held = otherInstance().acquire("m:job", Duration.ZERO)) {
				assertThat(jobs.skipping()).isEmpty();
				assertThat(jobs.fallingBack()).isEqualTo("fallback");
			}
			assertThat(meters.get("distlock.fallback").tag("lock.name", "m.skip").tag("action", "skip").counter().count())
				.isEqualTo(1);
			assertThat(meters.get("distlock.fallback")
				.tag("lock.name", "m.fallback")
				.tag("action", "fallback")
				.counter()
				.count()).isEqualTo(1);
			assertThat(jobs.skipping()).contains("ran");
			assertThat(meters.get("distlock.fallback").tag("lock.name", "m.skip").counter().count())
				.as("a call that got its lock is not a fallback").isEqualTo(1);
		});
	}

	private static LockRegistry registry(ApplicationContext context) {
		return context.getBean(LockRegistry.class);
	}

	private LockRegistry otherInstance() {
		this.other = new RedisLockRegistry(redis.server().connectionFactory());
		return this.other;
	}

	private static double count(MeterRegistry meters, String meter, String name, String outcome) {
		var search = meters.get(meter).tag("lock.name", name).tag("outcome", outcome);
		return meter.equals("distlock.acquire") ? search.timer().count() : search.counter().count();
	}

	public static class Jobs {

		@DistributedLock(key = "'m:job'", name = "m.skip", waitTime = "0s", onFailure = OnFailure.SKIP)
		public Optional<String> skipping() {
			return Optional.of("ran");
		}

		@DistributedLock(key = "'m:job'", name = "m.fallback", waitTime = "0s", onFailure = OnFailure.FALLBACK,
				fallbackMethod = "fallback")
		public String fallingBack() {
			return "ran";
		}

		String fallback(LockAcquisitionException ex) {
			return "fallback";
		}

	}

}

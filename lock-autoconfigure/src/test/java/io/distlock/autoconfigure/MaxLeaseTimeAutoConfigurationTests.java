package io.distlock.autoconfigure;

import java.time.Duration;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.distlock.annotation.DistributedLock;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.redlock.RedlockRegistry;
import io.distlock.test.redis.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Catalogue B13 at startup: a registry grants no lease longer than {@code distlock.max-lease-time}
 * (24 h by default), nor with Redlock longer than {@code distlock.redlock.restart-delay}; an
 * annotated method with a longer fixed {@code leaseTime} or {@code holdAtLeast} fails at startup,
 * naming the method and the attribute.
 */
class MaxLeaseTimeAutoConfigurationTests {

	private static RedisServer first;

	private static RedisServer second;

	private static RedisServer third;

	@BeforeAll
	static void start() {
		first = RedisServer.start();
		second = RedisServer.start();
		third = RedisServer.start();
	}

	@AfterAll
	static void stop() {
		first.close();
		second.close();
		third.close();
	}

	@Test
	void theRestartDelayLimitsTheRegistrysLeases() {
		redlock().withPropertyValues("distlock.redlock.restart-delay=1m").withBean("fits", LeaseWithinTheDelay.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(RedlockRegistry.class).maxLeaseTime()).contains(Duration.ofMinutes(1));
			});
	}

	@Test
	void anAnnotatedLeaseLongerThanTheRestartDelayFailsAtStartup() {
		redlock().withPropertyValues("distlock.redlock.restart-delay=1m").withBean("bad", LeaseBeyondTheDelay.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				Throwable failure = context.getStartupFailure();
				assertThat(failure).hasStackTraceContaining("@DistributedLock on LeaseBeyondTheDelay.run(): attribute "
						+ "'leaseTime' 'PT2M' is longer than the longest lease LockRegistry bean "
						+ "'distlockRedlockRegistry' (RedlockRegistry) grants ('PT1M'); shorten it, or raise "
						+ "distlock.max-lease-time (with Redlock, also distlock.redlock.restart-delay)");
				FailureAnalysis analysis = new LockConfigurationFailureAnalyzer().analyze(failure);
				assertThat(analysis).isNotNull();
				assertThat(analysis.getDescription()).contains("LeaseBeyondTheDelay.run()").contains("'leaseTime'");
			});
	}

	@Test
	void withoutARestartDelayRedlockLeasesAreLimitedByTheLongestLease() {
		redlock().withBean("long", LeaseBeyondTheDelay.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(RedlockRegistry.class).maxLeaseTime()).contains(Duration.ofHours(24));
		});
	}

	@Test
	void anAnnotatedLeaseLongerThanADayFailsAtStartup() {
		DistlockRunners.withRedis(first).withBean("bad", LeaseOfTwoDays.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).hasStackTraceContaining("@DistributedLock on LeaseOfTwoDays.run(): "
					+ "attribute 'leaseTime' 'PT48H' is longer than the longest lease LockRegistry bean "
					+ "'distlockRegistry' (RedisLockRegistry) grants ('PT24H')");
		});
	}

	@Test
	void anAnnotatedHoldAtLeastLongerThanADayFailsAtStartup() {
		DistlockRunners.withRedis(first).withBean("bad", HoldOfTwoDays.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).hasStackTraceContaining("@DistributedLock on HoldOfTwoDays.run(): "
					+ "attribute 'holdAtLeast' 'PT48H' is longer than the longest lease");
		});
	}

	@Test
	void aLongerLongestLeaseAllowsLongerAnnotatedLeases() {
		DistlockRunners.withRedis(first)
			.withPropertyValues("distlock.max-lease-time=3d")
			.withBean("twoDays", LeaseOfTwoDays.class)
			.withBean("holdTwoDays", HoldOfTwoDays.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(RedisLockRegistry.class).maxLeaseTime()).contains(Duration.ofDays(3));
			});
	}

	private static ApplicationContextRunner redlock() {
		return DistlockRunners.withRedlock(first, second, third);
	}

	static class LeaseWithinTheDelay {

		@DistributedLock(key = "'report'", leaseTime = "1m")
		public void run() {
		}

	}

	static class LeaseOfTwoDays {

		@DistributedLock(key = "'report'", leaseTime = "2d")
		public void run() {
		}

	}

	static class HoldOfTwoDays {

		@DistributedLock(key = "'report'", holdAtLeast = "2d")
		public void run() {
		}

	}

	static class LeaseBeyondTheDelay {

		@DistributedLock(key = "'report'", leaseTime = "2m")
		public void run() {
		}

	}

}

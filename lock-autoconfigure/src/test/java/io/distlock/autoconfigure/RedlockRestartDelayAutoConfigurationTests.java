package io.distlock.autoconfigure;

import java.time.Duration;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.distlock.annotation.DistributedLock;
import io.distlock.redlock.RedlockRegistry;
import io.distlock.test.redis.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code distlock.redlock.restart-delay} reaches the Redlock registry, which then grants no lease
 * longer than the delay: an annotated method with a longer fixed lease fails at startup, naming
 * the method and the attribute.
 */
class RedlockRestartDelayAutoConfigurationTests {

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
						+ "'leaseTime' 'PT2M' is longer than LockRegistry bean 'distlockRedlockRegistry' "
						+ "(RedlockRegistry) grants ('PT1M', the Redlock restart delay distlock.redlock.restart-delay)");
				FailureAnalysis analysis = new LockConfigurationFailureAnalyzer().analyze(failure);
				assertThat(analysis).isNotNull();
				assertThat(analysis.getDescription()).contains("LeaseBeyondTheDelay.run()").contains("'leaseTime'");
			});
	}

	@Test
	void withoutARestartDelayLeasesAreNotLimited() {
		redlock().withBean("long", LeaseBeyondTheDelay.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(RedlockRegistry.class).maxLeaseTime()).isEmpty();
		});
	}

	private static ApplicationContextRunner redlock() {
		return DistlockRunners.withRedis(first)
			.withPropertyValues("distlock.redlock.nodes[0]=redis://127.0.0.1:" + first.port(),
					"distlock.redlock.nodes[1]=redis://127.0.0.1:" + second.port(),
					"distlock.redlock.nodes[2]=redis://127.0.0.1:" + third.port());
	}

	static class LeaseWithinTheDelay {

		@DistributedLock(key = "'report'", leaseTime = "1m")
		public void run() {
		}

	}

	static class LeaseBeyondTheDelay {

		@DistributedLock(key = "'report'", leaseTime = "2m")
		public void run() {
		}

	}

}

package io.distlock.autoconfigure;

import java.time.Duration;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import io.distlock.core.LockAcquisitionException;
import io.distlock.core.LockRegistry;
import io.distlock.test.memory.InMemoryLockRegistry;
import io.distlock.test.redis.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code distlock.fail-fast}: with it, an application whose lock store does not answer does not
 * start, and the failure names the property; without it (the default), the application starts,
 * its health is DOWN and lock calls fail until the store answers.
 */
@ExtendWith(OutputCaptureExtension.class)
class FailFastIntegrationTests {

	private static RedisServer running;

	/** A port where a Redis ran and nothing listens any more. */
	private static RedisServer stopped;

	@BeforeAll
	static void start() {
		running = RedisServer.start();
		stopped = RedisServer.start();
		stopped.kill();
	}

	@AfterAll
	static void stop() {
		running.close();
		stopped.close();
	}

	@Test
	void aStoreThatDoesNotAnswerStopsStartup(CapturedOutput output) {
		DistlockRunners.withRedis(stopped).withPropertyValues("distlock.fail-fast=true").run((context) -> {
			assertThat(context).hasFailed();
			InvalidLockPropertyException failure = DistlockRunners.invalidProperty(context.getStartupFailure());
			assertThat(failure.getProperty()).isEqualTo("distlock.fail-fast");
			assertThat(failure.getMessage()).contains("the store that holds the locks does not answer");
			// The driver's own message names the address that was tried.
			assertThat(failure.getMessage()).contains(":" + stopped.port());
			assertThat(failure.getCause()).isNotNull();
			// The property is right: the action is about the store.
			assertThat(new LockConfigurationFailureAnalyzer().analyze(context.getStartupFailure()).getAction())
				.startsWith("Start the Redis that holds the locks");
			// The failure says it; no warning first that suggests the property already set.
			assertThat(output).doesNotContain("set distlock.fail-fast=true");
		});
	}

	@Test
	void withoutFailFastTheApplicationStartsReportsDownAndLockCallsFail(CapturedOutput output) {
		DistlockRunners.withRedis(stopped).run((context) -> {
			assertThat(context).hasNotFailed();
			// A warning at startup that names the address tried and says what follows.
			assertThat(output.getOut()).containsPattern("WARN .* Distributed locks: the Redis that holds the locks did "
					+ "not answer at startup \\(.*:" + stopped.port() + ".*\\): lock calls fail with "
					+ "LockAcquisitionException .* set distlock.fail-fast=true to refuse to start instead");
			HealthIndicator health = context.getBean("distlockHealthIndicator", HealthIndicator.class);
			assertThat(health.health().getStatus()).isEqualTo(Status.DOWN);
			assertThatExceptionOfType(LockAcquisitionException.class)
				.isThrownBy(() -> context.getBean(LockRegistry.class).acquire("fail-fast:off", Duration.ofMillis(200)));
		});
	}

	@Test
	void aStoreThatAnswersPasses() {
		DistlockRunners.withRedis(running).withPropertyValues("distlock.fail-fast=true").run((context) -> {
			assertThat(context).hasNotFailed();
			context.getBean(LockRegistry.class).acquire("fail-fast:on", Duration.ZERO).release();
		});
	}

	@Test
	void aRegistryThatCannotCheckItsStoreStopsStartup() {
		DistlockRunners.withRedis(running)
			.withPropertyValues("distlock.fail-fast=true")
			.withBean("userRegistry", LockRegistry.class, () -> UserLockRegistryTests.plain(new InMemoryLockRegistry()))
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(DistlockRunners.invalidProperty(context.getStartupFailure()).getMessage())
					.contains("does not implement io.distlock.core.LockRegistryIntrospection");
			});
	}

}

package io.distlock.autoconfigure;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.distlock.core.InvalidRegistryOptionException;
import io.distlock.core.LockRegistry;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rules a registry builder checks are checked there only; a bad {@code distlock.*} property
 * behind one of them still fails at startup, and the failure analysis names the property.
 */
class RegistryOptionFailureAnalysisTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private ApplicationContextRunner runner() {
		return DistlockRunners.withRedis(redis.server());
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			distlock.lease-time=20ms                 | distlock.lease-time                 | leaseTime must be at least 30ms but was 'PT0.02S': the watchdog renews
			distlock.renewal-interval=20s            | distlock.renewal-interval           | renewalInterval 'PT20S' must be at most half of leaseTime 'PT30S'
			distlock.renewal-interval=5ms            | distlock.renewal-interval           | renewalInterval must be at least 10ms but was 'PT0.005S'
			distlock.renewal-interval=0s             | distlock.renewal-interval           | renewalInterval must be positive but was 'PT0S'
			distlock.local-handoff.max-handoffs=-1   | distlock.local-handoff.max-handoffs | maxLocalHandoffs must be between 0 and 1000 but was '-1'
			distlock.local-handoff.max-handoffs=1001 | distlock.local-handoff.max-handoffs | maxLocalHandoffs must be between 0 and 1000 but was '1001'
			distlock.local-handoff.max-time=0ms      | distlock.local-handoff.max-time     | maxLocalHandoffTime must be positive but was 'PT0S'
			distlock.key-prefix=a{b                  | distlock.key-prefix                 | keyPrefix must not contain '{' or '}' (they delimit the hash tag) but was 'a{b'
			distlock.lease-time=0s                   | distlock.lease-time                 | leaseTime must be positive but was 'PT0S'
			distlock.retry-interval=0s               | distlock.retry-interval             | retryInterval must be positive but was 'PT0S'
			distlock.fence-retention-time=0s         | distlock.fence-retention-time       | fenceRetentionTime must be positive but was 'PT0S'
			distlock.max-key-bytes=100               | distlock.max-key-bytes              | maxKeyBytes must be between 256 and 1048576 but was '100'
			distlock.max-lease-time=10s              | distlock.max-lease-time             | maxLeaseTime 'PT10S' must be at least leaseTime 'PT30S' and at most 365 days
			distlock.replica-acknowledgement.replicas=-1 | distlock.replica-acknowledgement.replicas | replicas must not be negative but was '-1'
			""")
	void aPropertyTheRedisBuilderRefusesIsNamedByTheAnalysis(String property, String named, String message) {
		assertFailsNaming(runner().withPropertyValues(property), named, message);
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			distlock.redlock.nodes=redis://a:1,redis://b:1,redis://a:1/2 | distlock.redlock.nodes         | Redlock node 'a:1' is listed twice
			distlock.redlock.drift-factor=0.5                           | distlock.redlock.drift-factor  | driftFactor must be in (0, 0.1] but was '0.5'
			distlock.redlock.per-node-timeout=2s                        | distlock.lease-time            | leaseTime 'PT2S' must be longer than perNodeTimeout + drift + minValidity
			distlock.redlock.restart-delay=1s                           | distlock.redlock.restart-delay | restartDelay 'PT1S' must be at least the leaseTime 'PT2S'
			distlock.redlock.per-node-timeout=0s                        | distlock.redlock.per-node-timeout | perNodeTimeout must be positive
			distlock.redlock.min-validity=-1ms                          | distlock.redlock.min-validity  | minValidity 'PT-0.001S' must be at least zero and shorter than leaseTime 'PT2S'
			""")
	void aPropertyTheRedlockBuilderRefusesIsNamedByTheAnalysis(String property, String named, String message) {
		assertFailsNaming(runner().withPropertyValues("distlock.redlock.nodes=redis://a:1,redis://b:1,redis://c:1",
				"distlock.lease-time=2s", property), named, message);
	}

	@Test
	void anInvalidOptionOfTheApplicationsOwnRegistryIsNotBlamedOnAProperty() {
		LettuceConnectionFactory neverStarted = new LettuceConnectionFactory("localhost", 1);
		runner().withBean("ownRegistry", LockRegistry.class,
				() -> RedisLockRegistry.builder(neverStarted).renewalInterval(Duration.ofMillis(5)).build())
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).hasRootCauseInstanceOf(InvalidRegistryOptionException.class);
				FailureAnalysis analysis = new LockConfigurationFailureAnalyzer().analyze(context.getStartupFailure());
				assertThat(analysis.getDescription()).isEqualTo("renewalInterval must be at least 10ms but was 'PT0.005S'");
				assertThat(analysis.getAction()).doesNotContain("distlock.renewal-interval");
			});
	}

	private static void assertFailsNaming(ApplicationContextRunner runner, String property, String message) {
		runner.run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = new LockConfigurationFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis.getDescription()).startsWith("Property '" + property + "' is invalid: " + message);
			assertThat(analysis.getAction()).isEqualTo("Update '" + property + "' in your application configuration.");
		});
	}

}

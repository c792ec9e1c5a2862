package io.distlock.autoconfigure;

import java.time.Duration;

import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import io.distlock.annotation.DistributedLock;
import io.distlock.core.LockConfigurationException;
import io.distlock.core.LockRegistry;
import io.distlock.core.WaitStrategy;
import io.distlock.interceptor.LockAdvisor;
import io.distlock.interceptor.LockedTransactionGuard;
import io.distlock.metrics.MicrometerLockListener;
import io.distlock.core.LockAcquisitionException;
import io.distlock.core.LockReplicationException;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.redlock.RedlockRegistry;
import io.distlock.test.redis.RedisServer;
import io.distlock.test.memory.InMemoryLockRegistry;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class DistlockAutoConfigurationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private ApplicationContextRunner runner() {
		return DistlockRunners.withRedis(redis.server());
	}

	@Test
	void registersARedisLockRegistryConfiguredByTheProperties() {
		runner().withPropertyValues("distlock.key-prefix=app:locks:", "distlock.lease-time=12s",
				"distlock.wait-strategy=polling", "distlock.retry-interval=50ms",
				"distlock.local-handoff.max-handoffs=4", "distlock.local-handoff.max-time=20ms")
			.run((context) -> {
				RedisLockRegistry registry = context.getBean(RedisLockRegistry.class);
				assertThat(registry.getKeyPrefix()).isEqualTo("app:locks:");
				assertThat(registry.getSettings().leaseTime()).isEqualTo(Duration.ofSeconds(12));
				assertThat(registry.getSettings().renewalInterval()).isEqualTo(Duration.ofSeconds(4));
				assertThat(registry.getSettings().waitStrategy()).isEqualTo(WaitStrategy.POLLING);
				assertThat(registry.getSettings().retryInterval()).isEqualTo(Duration.ofMillis(50));
				assertThat(registry.getSettings().maxLocalHandoffs()).isEqualTo(4);
				assertThat(registry.getSettings().maxLocalHandoffTime()).isEqualTo(Duration.ofMillis(20));
				assertThat(context).hasSingleBean(LockAdvisor.class).hasSingleBean(LockedTransactionGuard.class);
				registry.acquire("auto", Duration.ZERO).release();
			});
	}

	@Test
	void customizersSeeTheBuilderAfterTheProperties() {
		runner().withBean(RedisLockRegistryBuilderCustomizer.class, () -> (builder) -> builder.instanceId("node-7"))
			.run((context) -> assertThat(context.getBean(RedisLockRegistry.class).getSettings().instanceId())
				.isEqualTo("node-7"));
	}

	@Test
	void backsOffForTheApplicationsOwnRegistry() {
		runner().withBean(LockRegistry.class, InMemoryLockRegistry::new)
			.run((context) -> assertThat(context).hasSingleBean(LockRegistry.class)
				.doesNotHaveBean(RedisLockRegistry.class)
				.hasSingleBean(LockAdvisor.class));
	}

	@Test
	void disabledSwitchesEverythingOff() {
		runner().withPropertyValues("distlock.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(LockRegistry.class)
				.doesNotHaveBean(LockAdvisor.class)
				.doesNotHaveBean(LockedTransactionGuard.class));
	}

	@Test
	void withoutRedisThereIsNoRegistry() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DistlockAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(LockRegistry.class));
	}

	@Test
	void annotatedMethodsWithoutARegistryFailAtStartup() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DistlockAutoConfiguration.class))
			.withBean(Job.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(deepest(context.getStartupFailure())).isInstanceOf(LockConfigurationException.class)
					.hasMessageContaining("have @DistributedLock methods but there is no LockRegistry bean");
			});
	}

	@Test
	void withoutMicrometerTheRegistryWorksWithoutMeters() {
		runner().withClassLoader(new FilteredClassLoader("io.micrometer"))
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(RedisLockRegistry.class);
				assertThat(context).doesNotHaveBean(MicrometerLockListener.class);
			});
	}

	@Test
	void withMicrometerTheRegistryRecordsMeters() {
		DistlockRunners.withRedisAndMetrics(redis.server()).run((context) -> {
			assertThat(context).hasSingleBean(MicrometerLockListener.class);
			context.getBean(LockRegistry.class).acquire("metered", Duration.ZERO).release();
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			assertThat(meters.get("distlock.acquire").tag("outcome", "acquired").timer().count()).isEqualTo(1);
			assertThat(meters.get("distlock.release").tag("outcome", "released").counter().count()).isEqualTo(1);
		});
	}

	@Test
	void metricsCanBeSwitchedOff() {
		DistlockRunners.withRedisAndMetrics(redis.server())
			.withPropertyValues("distlock.metrics.enabled=false")
			.run((context) -> assertThat(context).hasSingleBean(RedisLockRegistry.class)
				.doesNotHaveBean(MicrometerLockListener.class));
	}

	@Test
	void unknownPropertiesAreRejected() {
		runner().withPropertyValues("distlock.lease-tme=10s")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("distlock.lease-tme"));
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			distlock.wait-time=-1s           | Property 'distlock.wait-time' with value 'PT-1S' must not be negative
			""")
	void invalidPropertiesFailAtStartupNamingTheProperty(String property, String message) {
		runner().withPropertyValues(property).run((context) -> {
			assertThat(context).hasFailed();
			Throwable failure = context.getStartupFailure();
			InvalidLockPropertyException cause = DistlockRunners.invalidProperty(failure);
			assertThat(cause.getMessage()).startsWith(message);
			FailureAnalysis analysis = new LockConfigurationFailureAnalyzer().analyze(failure);
			assertThat(analysis.getAction())
				.isEqualTo("Update '" + cause.getProperty() + "' in your application configuration.");
			assertThat(property).startsWith(cause.getProperty());
		});
	}

	@Test
	void aLeaseBelowTheMinimumFailsAtStartupNamingTheLeaseTimeEvenWithItsOwnRenewalInterval() {
		runner().withPropertyValues("distlock.lease-time=5ms", "distlock.renewal-interval=10ms").run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = new LockConfigurationFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis.getDescription()).startsWith("Property 'distlock.lease-time' is invalid: leaseTime must"
					+ " be at least 10ms but was 'PT0.005S': Redis expires keys to the millisecond and a holder keeps"
					+ " back a drift margin");
			assertThat(analysis.getAction()).isEqualTo("Update 'distlock.lease-time' in your application configuration.");
		});
		runner().withPropertyValues("distlock.lease-time=20ms", "distlock.renewal-interval=10ms")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	private static Throwable deepest(Throwable failure) {
		Throwable deepest = failure;
		while (deepest.getCause() != null && deepest.getCause() != deepest) {
			deepest = deepest.getCause();
		}
		return deepest;
	}

	@Test
	@ExtendWith(OutputCaptureExtension.class)
	void redlockNodesMakeARedlockRegistry(CapturedOutput output) {
		try (RedisServer second = RedisServer.start(); RedisServer third = RedisServer.start()) {
			DistlockRunners.withRedlock(redis.server(), second, third)
				.withPropertyValues("distlock.redlock.per-node-timeout=200ms")
				.run((context) -> {
					assertThat(context).hasSingleBean(LockRegistry.class).doesNotHaveBean(RedisLockRegistry.class);
					RedlockRegistry registry = context.getBean(RedlockRegistry.class);
					assertThat(registry.getNodeCount()).isEqualTo(3);
					registry.acquire("redlock:auto", Duration.ZERO).release();
				});
		}
		assertThat(output).doesNotContain("Redlock over");
	}

	@Test
	@ExtendWith(OutputCaptureExtension.class)
	void anEvenNumberOfRedlockNodesIsWarnedAboutAtStartup(CapturedOutput output) {
		try (RedisServer second = RedisServer.start()) {
			DistlockRunners.withRedlock(redis.server(), second)
				.withPropertyValues("distlock.redlock.per-node-timeout=200ms")
				.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(RedlockRegistry.class));
		}
		assertThat(output).contains("Redlock over 2 nodes needs 2 of them to agree, so it tolerates 0 failed "
				+ "node(s), as many as 1 node(s) would; use an odd number of nodes");
	}

	@Test
	void replicaAcknowledgementFailsAcquisitionsTheReplicasDoNotAcknowledge() {
		// A standalone server has no replica: every grant is unacknowledged and given back. A wait
		// of seconds: a failed acknowledgement fails at once, and a wait of zero allows the answer
		// only 150 ms past the timeout, which a loaded machine can overrun.
		runner().withPropertyValues("distlock.replica-acknowledgement.replicas=1",
				"distlock.replica-acknowledgement.timeout=50ms")
			.run((context) -> assertThatExceptionOfType(LockAcquisitionException.class)
				.isThrownBy(() -> context.getBean(LockRegistry.class).acquire("ack:auto", Duration.ofSeconds(5)))
				.withRootCauseInstanceOf(LockReplicationException.class));
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			distlock.replica-acknowledgement.replicas=1           | Property 'distlock.replica-acknowledgement.replicas' with value '1' cannot be combined with distlock.redlock.nodes
			distlock.loss-detection.keyspace-events=true          | Property 'distlock.loss-detection.keyspace-events' with value 'true' is not supported with Redlock (distlock.redlock.nodes)
			""")
	void invalidRedlockPropertiesFailAtStartup(String property, String message) {
		runner().withPropertyValues("distlock.redlock.nodes=redis://a:1,redis://b:1,redis://c:1",
				"distlock.lease-time=2s", property)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(DistlockRunners.invalidProperty(context.getStartupFailure()).getMessage()).startsWith(message);
			});
	}

	static class Job {

		@DistributedLock
		public void run() {
		}

	}

}

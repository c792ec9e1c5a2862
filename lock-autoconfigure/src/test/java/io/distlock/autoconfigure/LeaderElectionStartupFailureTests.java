package io.distlock.autoconfigure;

import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.distlock.annotation.LeaderOnly;
import io.distlock.autoconfigure.LeaderElectionAutoConfigurationIntegrationTests.ConsumerLifecycle;
import io.distlock.core.LockConfigurationException;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Leader election's configuration mistakes fail startup, naming the method, bean or property to
 * fix: a {@code @LeaderOnly} lifecycle bean that starts by itself, a {@code @LeaderOnly} method
 * of a role no election decides or with a result, a renew deadline not shorter than the lease.
 */
@Timeout(60)
class LeaderElectionStartupFailureTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private ApplicationContextRunner runner() {
		return DistlockRunners.withRedis(redis.server())
			.withConfiguration(AutoConfigurations.of(DistlockLeaderAutoConfiguration.class))
			.withPropertyValues("distlock.lease-time=1s", "distlock.leader.roles.billing.key=leader:" + UUID.randomUUID());
	}

	@Test
	void aLeaderOnlyLifecycleThatStartsByItselfFailsStartup() {
		runner().withUserConfiguration(SelfStartingConsumer.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(configurationFailure(context.getStartupFailure()))
				.hasMessageContaining("selfStartingConsumer")
				.hasMessageContaining("isAutoStartup()");
		});
	}

	@Test
	void aLeaderOnlyMethodOfAnUnknownRoleFailsStartupNamingMethodAndRole() {
		runner().withUserConfiguration(UnknownRole.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(configurationFailure(context.getStartupFailure()))
				.hasMessageContaining("UnknownRole.report")
				.hasMessageContaining("distlock.leader.roles.reports");
			FailureAnalysis analysis = new LockConfigurationFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("names role 'reports'");
			assertThat(analysis.getAction()).contains("@LeaderOnly");
		});
	}

	@Test
	void aLeaderOnlyMethodWithoutALockRegistryFailsStartupRatherThanRunningEverywhere() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DistlockLeaderAutoConfiguration.class))
			.withUserConfiguration(UnknownRole.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(configurationFailure(context.getStartupFailure())).hasMessageContaining("UnknownRole.report")
					.hasMessageContaining("needs one LockRegistry bean");
			});
	}

	@Test
	void aLeaderOnlyMethodWithAResultFailsStartup() {
		runner().withUserConfiguration(WithResult.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(configurationFailure(context.getStartupFailure()))
				.hasMessageContaining("WithResult.count")
				.hasMessageContaining("must return void");
		});
	}

	@Test
	void aRenewDeadlineNotShorterThanTheLeaseFailsStartupNamingTheProperty() {
		runner().withPropertyValues("distlock.leader.renew-deadline=1s").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(DistlockRunners.invalidProperty(context.getStartupFailure()).getProperty())
				.isEqualTo("distlock.leader.renew-deadline");
		});
	}

	private static LockConfigurationException configurationFailure(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof LockConfigurationException configuration) {
				return configuration;
			}
		}
		throw new AssertionError("No LockConfigurationException in", failure);
	}

	@Configuration(proxyBeanMethods = false)
	static class SelfStartingConsumer {

		@Bean
		@LeaderOnly("billing")
		ConsumerLifecycle selfStartingConsumer() {
			return new ConsumerLifecycle(true);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UnknownRole {

		@LeaderOnly("reports")
		public void report() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class WithResult {

		@LeaderOnly("billing")
		public int count() {
			return 1;
		}

	}

}

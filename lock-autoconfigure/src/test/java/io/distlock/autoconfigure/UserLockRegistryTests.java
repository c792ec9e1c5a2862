package io.distlock.autoconfigure;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.EnumSet;
import java.util.Set;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.distlock.actuate.LocksEndpoint;
import io.distlock.actuate.LocksEndpoint.DefinitionDescriptor;
import io.distlock.actuate.LocksEndpoint.LocksDescriptor;
import io.distlock.annotation.DistributedLock;
import io.distlock.core.LockContext;
import io.distlock.core.LockFeature;
import io.distlock.core.LockRegistry;
import io.distlock.test.memory.InMemoryLockRegistry;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application's own {@link LockRegistry} bean, here the in-memory one, gets everything the
 * starter offers around a registry: the advice, {@code /actuator/locks} with its held locks, the
 * health check, and the startup check of the kinds of lock its annotations ask for. A registry
 * that does not implement {@code LockRegistryIntrospection} still gets the endpoint's definitions.
 */
@Timeout(60)
class UserLockRegistryTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DistlockAutoConfiguration.class,
				DistlockActuatorAutoConfiguration.class, EndpointAutoConfiguration.class))
		.withPropertyValues("management.endpoints.web.exposure.include=locks",
				"management.endpoint.locks.show-values=always");

	@Test
	void inMemoryRegistryBeanGetsHeldLocksAndHealth() {
		this.runner.withBean("userRegistry", LockRegistry.class, InMemoryLockRegistry::new)
			.withBean("reports", Reports.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				LocksEndpoint endpoint = context.getBean(LocksEndpoint.class);
				HealthIndicator health = context.getBean("distlockHealthIndicator", HealthIndicator.class);
				Reports reports = context.getBean(Reports.class);
				long[] token = new long[1];
				LocksDescriptor whileHeld = reports.daily("june", () -> {
					token[0] = LockContext.current().fencingToken();
					return endpoint.locks(SecurityContext.NONE);
				});
				assertThat(whileHeld.definitions()).extracting(DefinitionDescriptor::name).containsExactly("Reports.daily");
				assertThat(whileHeld.held()).singleElement().satisfies((held) -> {
					assertThat(held.name()).isEqualTo("Reports.daily");
					assertThat(held.key()).isEqualTo("report:june");
					assertThat(held.fencingToken()).isEqualTo(token[0]);
				});
				Health healthWhileHeld = reports.daily("july", () -> health.health(true));
				assertThat(healthWhileHeld.getStatus()).isEqualTo(Status.UP);
				assertThat(healthWhileHeld.getDetails()).containsEntry("held", 1).containsEntry("lost", 0L);
				assertThat(endpoint.locks(SecurityContext.NONE).held()).isEmpty();
			});
	}

	@Test
	void closedInMemoryRegistryIsReportedDown() {
		this.runner.withBean("userRegistry", LockRegistry.class, InMemoryLockRegistry::new).run((context) -> {
			((InMemoryLockRegistry) context.getBean(LockRegistry.class)).close();
			Health health = context.getBean("distlockHealthIndicator", HealthIndicator.class).health(true);
			assertThat(health.getStatus()).isEqualTo(Status.DOWN);
		});
	}

	@Test
	void registryWithoutIntrospectionGetsDefinitionsOnlyAndUnknownHealth() {
		InMemoryLockRegistry delegate = new InMemoryLockRegistry();
		try {
			this.runner.withBean("userRegistry", LockRegistry.class, () -> plain(delegate))
				.withBean("reports", Reports.class)
				.run((context) -> {
					assertThat(context).hasNotFailed();
					LocksEndpoint endpoint = context.getBean(LocksEndpoint.class);
					LocksDescriptor whileHeld = context.getBean(Reports.class)
						.daily("june", () -> endpoint.locks(SecurityContext.NONE));
					assertThat(delegate.heldLocks()).isEmpty();
					assertThat(whileHeld.definitions()).extracting(DefinitionDescriptor::name)
						.containsExactly("Reports.daily");
					assertThat(whileHeld.held()).isEmpty();
					Health health = context.getBean("distlockHealthIndicator", HealthIndicator.class).health(true);
					assertThat(health.getStatus()).isEqualTo(Status.UNKNOWN);
					assertThat(health.getDetails().get("reason")).asString()
						.contains("does not implement io.distlock.core.LockRegistryIntrospection");
				});
		}
		finally {
			delegate.close();
		}
	}

	@Test
	void fairLockOnARegistryWithoutFairLocksFailsAtStartup() {
		this.runner.withBean("userRegistry", LockRegistry.class, ExclusiveOnlyRegistry::new)
			.withBean("fair", FairReports.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				Throwable failure = context.getStartupFailure();
				assertThat(failure).hasStackTraceContaining("@DistributedLock on FairReports.run(): attribute 'fair' "
						+ "asks for a fair lock, which LockRegistry bean 'userRegistry' "
						+ "(ExclusiveOnlyRegistry) does not offer");
				FailureAnalysis analysis = new LockConfigurationFailureAnalyzer().analyze(failure);
				assertThat(analysis).isNotNull();
				assertThat(analysis.getDescription()).contains("FairReports.run()").contains("'fair'");
			});
	}

	@Test
	void fairLockOnARegistryWithFairLocksStarts() {
		this.runner.withBean("userRegistry", LockRegistry.class, InMemoryLockRegistry::new)
			.withBean("fair", FairReports.class)
			.run((context) -> assertThat(context).hasNotFailed());
	}

	/**
	 * A {@link LockRegistry} that is nothing else: a JDK proxy over the in-memory registry that
	 * hides its {@code LockRegistryIntrospection}.
	 */
	static LockRegistry plain(LockRegistry delegate) {
		return (LockRegistry) Proxy.newProxyInstance(UserLockRegistryTests.class.getClassLoader(),
				new Class<?>[] { LockRegistry.class }, (proxy, method, args) -> {
					try {
						return method.invoke(delegate, args);
					}
					catch (InvocationTargetException ex) {
						throw ex.getCause();
					}
				});
	}

	static class ExclusiveOnlyRegistry extends InMemoryLockRegistry {

		@Override
		public Set<LockFeature> supportedFeatures() {
			return EnumSet.noneOf(LockFeature.class);
		}

	}

	static class Reports {

		@DistributedLock(key = "'report:' + #name")
		public <T> T daily(String name, Supplier<T> whileHeld) {
			return whileHeld.get();
		}

	}

	static class FairReports {

		@DistributedLock(fair = true)
		public void run() {
		}

	}

}

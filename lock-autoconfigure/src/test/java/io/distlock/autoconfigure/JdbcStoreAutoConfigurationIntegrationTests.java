package io.distlock.autoconfigure;

import java.util.concurrent.atomic.AtomicReference;

import javax.sql.DataSource;

import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.distlock.actuate.LocksEndpoint;
import io.distlock.actuate.LocksEndpoint.HeldDescriptor;
import io.distlock.annotation.DistributedLock;
import io.distlock.core.LockConfigurationException;
import io.distlock.core.LockContext;
import io.distlock.core.LockRegistry;
import io.distlock.jdbc.PostgresLockRegistry;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code distlock.store=jdbc} on a real PostgreSQL 18, with Redis on the class path and running:
 * the registry is the PostgreSQL one, the lease table is created when asked to (and its absence
 * named at startup when not), and the annotation, {@code /actuator/locks}, health and meters work
 * on it unchanged.
 */
@Timeout(60)
class JdbcStoreAutoConfigurationIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	static final EmbeddedPostgresExtension postgres = new EmbeddedPostgresExtension();

	private ApplicationContextRunner runner() {
		return DistlockRunners.withRedisAndMetrics(redis.server())
			.withConfiguration(AutoConfigurations.of(EndpointAutoConfiguration.class))
			.withPropertyValues("management.endpoints.web.exposure.include=locks",
					"management.endpoint.locks.show-values=always", "distlock.store=jdbc",
					"distlock.jdbc.initialize-schema=always")
			.withBean(DataSource.class, postgres::dataSource)
			.withBean("inventory", Inventory.class);
	}

	@Test
	void storeJdbcGivesThePostgresRegistryAndTheAnnotationActuatorAndMetersWorkOnIt() {
		runner().run((context) -> {
			assertThat(context).hasSingleBean(LockRegistry.class).doesNotHaveBean(RedisLockRegistry.class);
			assertThat(context.getBean(LockRegistry.class)).isInstanceOf(PostgresLockRegistry.class);
			LocksEndpoint endpoint = context.getBean(LocksEndpoint.class);
			AtomicReference<HeldDescriptor> heldInside = new AtomicReference<>();
			long token = context.getBean(Inventory.class)
				.reserve(42, () -> heldInside.set(endpoint.locks(SecurityContext.NONE).held().get(0)));
			assertThat(token).isPositive();
			assertThat(heldInside.get().key()).isEqualTo("stock:42");
			assertThat(heldInside.get().fencingToken()).isEqualTo(token);
			assertThat(endpoint.locks(SecurityContext.NONE).held()).isEmpty();
			assertThat(context.getBean("distlockHealthIndicator", HealthIndicator.class).health().getStatus())
				.isEqualTo(Status.UP);
			assertThat(context.getBean(MeterRegistry.class).get("distlock.acquire").tag("outcome", "acquired").timer()
				.count()).isEqualTo(1);
		});
	}

	@Test
	void withoutTheTableStartupNamesIt() {
		runner().withPropertyValues("distlock.jdbc.initialize-schema=never", "distlock.jdbc.table-name=missing_locks")
			.run((context) -> assertThat(context).getFailure()
				.hasStackTraceContaining(LockConfigurationException.class.getName() + ": Lock table 'missing_locks'"
						+ " does not exist"));
	}

	@Test
	void storeRedisKeepsTheRedisRegistryBesideADataSource() {
		runner().withPropertyValues("distlock.store=redis")
			.run((context) -> assertThat(context.getBean(LockRegistry.class)).isInstanceOf(RedisLockRegistry.class));
	}

	static class Inventory {

		@DistributedLock(key = "'stock:' + #productId", waitTime = "2s")
		long reserve(long productId, Runnable whileHeld) {
			whileHeld.run();
			return LockContext.current().fencingToken();
		}

	}

}

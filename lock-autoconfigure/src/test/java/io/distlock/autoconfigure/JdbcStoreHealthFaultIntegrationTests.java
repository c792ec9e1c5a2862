package io.distlock.autoconfigure;

import java.time.Duration;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.distlock.core.LockRegistryIntrospection;
import io.distlock.jdbc.PostgresLockRegistry;
import io.distlock.test.postgres.PostgresProcess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatRuntimeException;
import static org.awaitility.Awaitility.await;

/**
 * {@code distlock.store=jdbc} on a real PostgreSQL 18 that the test pauses (SIGSTOP, every
 * process of the server): the {@code distlock} health component, polled without pause, turns
 * DOWN within a second of the pause and UP again after SIGCONT (catalogue T42). The negative
 * control: the registry's own check, with its bound of a second, could not have done it.
 */
@Tag("fault")
@Timeout(120)
class JdbcStoreHealthFaultIntegrationTests {

	private static final Duration DOWN_WITHIN = Duration.ofSeconds(1);

	@Test
	void healthTurnsDownWithinASecondOfAPausedServerAndUpAfterIt() throws Exception {
		try (PostgresProcess server = PostgresProcess.start(); HikariDataSource pool = pool(server.dataSource())) {
			runner(pool).run((context) -> {
				assertThat(context.getBean(LockRegistryIntrospection.class)).isInstanceOf(PostgresLockRegistry.class);
				HealthIndicator health = context.getBean("distlockHealthIndicator", HealthIndicator.class);
				assertThat(health.health().getStatus()).isEqualTo(Status.UP);
				long pausedAt = System.nanoTime();
				server.pause();
				Duration down;
				try {
					Status status = health.health().getStatus();
					while (Status.UP.equals(status) && System.nanoTime() - pausedAt < Duration.ofSeconds(10).toNanos()) {
						status = health.health().getStatus();
					}
					down = Duration.ofNanos(System.nanoTime() - pausedAt);
					assertThat(status).isEqualTo(Status.DOWN);
					assertThat(health.health().getStatus()).as("while the server stays paused").isEqualTo(Status.DOWN);
					// Negative control: the registry's own check waits its full second.
					long checkStart = System.nanoTime();
					assertThatRuntimeException().isThrownBy(context.getBean(LockRegistryIntrospection.class)::checkStore);
					assertThat(Duration.ofNanos(System.nanoTime() - checkStart)).isGreaterThanOrEqualTo(DOWN_WITHIN);
				}
				finally {
					server.resume();
				}
				assertThat(down).as("from SIGSTOP to a DOWN health").isLessThanOrEqualTo(DOWN_WITHIN);
				await().atMost(Duration.ofSeconds(15))
					.pollInterval(Duration.ofMillis(100))
					.until(() -> Status.UP.equals(health.health().getStatus()));
			});
		}
	}

	private static ApplicationContextRunner runner(DataSource dataSource) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DistlockAutoConfiguration.class,
					DistlockActuatorAutoConfiguration.class))
			.withPropertyValues("distlock.store=jdbc", "distlock.jdbc.initialize-schema=always")
			.withBean(DataSource.class, () -> dataSource);
	}

	/** A connection pool as an application has, with Hikari's defaults. */
	private static HikariDataSource pool(DataSource target) {
		HikariConfig config = new HikariConfig();
		config.setDataSource(target);
		config.setMaximumPoolSize(10);
		return new HikariDataSource(config);
	}

}

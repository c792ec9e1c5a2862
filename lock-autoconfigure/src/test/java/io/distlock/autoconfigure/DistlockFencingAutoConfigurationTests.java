package io.distlock.autoconfigure;

import javax.sql.DataSource;

import io.r2dbc.spi.ConnectionFactories;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisReactiveAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.r2dbc.autoconfigure.R2dbcAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.r2dbc.core.DatabaseClient;

import io.distlock.fencing.JdbcFencing;
import io.distlock.fencing.R2dbcFencing;
import io.distlock.fencing.ReactiveRedisFencing;
import io.distlock.fencing.RedisFencing;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fenced-write helpers as an application gets them: a {@link JdbcFencing} on its data
 * source, with the fence table created in an embedded database unless
 * {@code distlock.fencing.initialize-schema} says otherwise, a {@link RedisFencing} on its
 * template and a {@link ReactiveRedisFencing} on its reactive template.
 */
class DistlockFencingAutoConfigurationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private ApplicationContextRunner runner() {
		return DistlockRunners.withRedis(redis.server())
			.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
					DataRedisReactiveAutoConfiguration.class, DistlockFencingAutoConfiguration.class))
			.withPropertyValues("spring.datasource.generate-unique-name=true");
	}

	@Test
	void anEmbeddedDatabaseGetsTheFencingHelpersAndTheFenceTable() {
		runner().run((context) -> {
			assertThat(context).hasSingleBean(JdbcFencing.class)
				.hasSingleBean(RedisFencing.class)
				.hasSingleBean(ReactiveRedisFencing.class);
			assertThat(fenceTableExists(JdbcClient.create(context.getBean(DataSource.class)))).isTrue();
		});
	}

	@Test
	void aDatabaseClientGetsR2dbcFencing() {
		runner().withBean(DatabaseClient.class,
				() -> DatabaseClient.create(ConnectionFactories.get("r2dbc:postgresql://user:secret@localhost:1/unused")))
			.run((context) -> assertThat(context).hasSingleBean(R2dbcFencing.class));
		runner().run((context) -> assertThat(context).doesNotHaveBean(R2dbcFencing.class));
	}

	@Test
	void comesAfterBootsR2dbcAutoConfigurationWhoseDatabaseClientItFences() {
		// Listed first: the order comes from the auto-configurations' afterName, not from this list
		// (which would put io.distlock before org.springframework by name).
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DistlockFencingAutoConfiguration.class, R2dbcAutoConfiguration.class))
			.withPropertyValues("spring.r2dbc.url=r2dbc:postgresql://user:secret@localhost:1/unused")
			.run((context) -> assertThat(context).hasSingleBean(DatabaseClient.class).hasSingleBean(R2dbcFencing.class));
	}

	@Test
	void initializeSchemaNeverLeavesTheTableToTheApplicationsMigrations() {
		runner().withPropertyValues("distlock.fencing.initialize-schema=never").run((context) -> {
			assertThat(context).hasSingleBean(JdbcFencing.class);
			assertThat(fenceTableExists(JdbcClient.create(context.getBean(DataSource.class)))).isFalse();
		});
	}

	@Test
	void aFencingHelperOfTheApplicationsOwnWins() {
		runner().withBean("custom", JdbcFencing.class,
				() -> new JdbcFencing(new JdbcDataSource()).withTable("custom_fence"))
			.run((context) -> assertThat(context).getBean(JdbcFencing.class).isSameAs(context.getBean("custom")));
	}

	private static boolean fenceTableExists(JdbcClient jdbc) {
		return jdbc.sql("SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES WHERE UPPER(TABLE_NAME) = 'DISTLOCK_FENCE'")
			.query(Long.class)
			.single() > 0;
	}

}

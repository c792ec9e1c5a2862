package io.distlock.autoconfigure;

import javax.sql.DataSource;

import reactor.core.publisher.Mono;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.jdbc.init.DataSourceScriptDatabaseInitializer;
import org.springframework.boot.jdbc.init.PlatformPlaceholderDatabaseDriverResolver;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.boot.sql.init.DatabaseInitializationSettings;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.r2dbc.core.DatabaseClient;

import io.distlock.core.LockListener;
import io.distlock.fencing.JdbcFencing;
import io.distlock.fencing.R2dbcFencing;
import io.distlock.fencing.ReactiveRedisFencing;
import io.distlock.fencing.RedisFencing;
import io.distlock.listener.CompositeLockListener;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration Auto-configuration}
 * for fenced writes: a {@link JdbcFencing} on the application's {@link DataSource} (and its
 * fence table, {@code distlock.fencing.initialize-schema}), an {@link R2dbcFencing} on its
 * {@link DatabaseClient}, a {@link RedisFencing} on its {@link StringRedisTemplate} and a
 * {@link ReactiveRedisFencing} on its {@link ReactiveStringRedisTemplate}, each telling the application's {@link LockListener}s (the
 * {@code distlock.fencing.rejected} meter) of a refused write.
 */
@AutoConfiguration(afterName = { "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
		"org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
		"org.springframework.boot.data.redis.autoconfigure.DataRedisReactiveAutoConfiguration",
		"org.springframework.boot.r2dbc.autoconfigure.R2dbcAutoConfiguration",
		"org.springframework.boot.data.r2dbc.autoconfigure.DataR2dbcAutoConfiguration",
		"io.distlock.autoconfigure.DistlockMetricsAutoConfiguration" })
@ConditionalOnBooleanProperty(name = "distlock.enabled", matchIfMissing = true)
@EnableConfigurationProperties(DistlockProperties.class)
public final class DistlockFencingAutoConfiguration {

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ JdbcClient.class, DataSourceScriptDatabaseInitializer.class })
	@ConditionalOnSingleCandidate(DataSource.class)
	static class JdbcFencingConfiguration {

		@Bean
		@ConditionalOnMissingBean
		JdbcFencing jdbcFencing(DataSource dataSource, ObjectProvider<LockListener> listeners) {
			return new JdbcFencing(dataSource)
				.withListener(CompositeLockListener.of(listeners.orderedStream().toList()));
		}

		@Bean
		@ConditionalOnMissingBean(name = "distlockFenceTableInitializer")
		DataSourceScriptDatabaseInitializer distlockFenceTableInitializer(DataSource dataSource,
				DistlockProperties properties) {
			DatabaseInitializationSettings settings = new DatabaseInitializationSettings();
			settings.setSchemaLocations(new PlatformPlaceholderDatabaseDriverResolver().resolveAll(dataSource,
					"classpath:io/distlock/fencing/schema-@@platform@@.sql"));
			settings.setMode(switch (properties.getFencing().getInitializeSchema()) {
				case EMBEDDED -> DatabaseInitializationMode.EMBEDDED;
				case ALWAYS -> DatabaseInitializationMode.ALWAYS;
				case NEVER -> DatabaseInitializationMode.NEVER;
			});
			return new DataSourceScriptDatabaseInitializer(dataSource, settings);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ DatabaseClient.class, Mono.class })
	@ConditionalOnSingleCandidate(DatabaseClient.class)
	static class R2dbcFencingConfiguration {

		@Bean
		@ConditionalOnMissingBean
		R2dbcFencing r2dbcFencing(DatabaseClient database, ObjectProvider<LockListener> listeners) {
			return new R2dbcFencing(database).withListener(CompositeLockListener.of(listeners.orderedStream().toList()));
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ ReactiveStringRedisTemplate.class, Mono.class })
	@ConditionalOnBean(ReactiveStringRedisTemplate.class)
	static class ReactiveRedisFencingConfiguration {

		@Bean
		@ConditionalOnMissingBean
		ReactiveRedisFencing reactiveRedisFencing(ReactiveStringRedisTemplate template,
				ObjectProvider<LockListener> listeners) {
			return new ReactiveRedisFencing(template)
				.withListener(CompositeLockListener.of(listeners.orderedStream().toList()));
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(StringRedisTemplate.class)
	@ConditionalOnBean(StringRedisTemplate.class)
	static class RedisFencingConfiguration {

		@Bean
		@ConditionalOnMissingBean
		RedisFencing redisFencing(StringRedisTemplate template, ObjectProvider<LockListener> listeners) {
			return new RedisFencing(template).withListener(CompositeLockListener.of(listeners.orderedStream().toList()));
		}

	}

}

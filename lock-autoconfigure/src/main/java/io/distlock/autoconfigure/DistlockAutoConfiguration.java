package io.distlock.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration Auto-configuration}
 * for distributed locks: a {@code RedisLockRegistry} on the application's
 * {@link RedisConnectionFactory} (or a {@code PostgresLockRegistry} on its {@code DataSource},
 * {@code distlock.store=jdbc}), and the advice of {@code @DistributedLock}.
 */
@AutoConfiguration(afterName = { "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
		"org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration" })
@ConditionalOnClass(RedisConnectionFactory.class)
@ConditionalOnBooleanProperty(name = "distlock.enabled", matchIfMissing = true)
@EnableConfigurationProperties(DistlockProperties.class)
// The PostgreSQL registry's configuration first: when it defines the registry, the Redis one backs off.
@Import({ JdbcLockRegistryConfiguration.class, LockRegistryConfiguration.class, LockAnnotationConfiguration.class, LockTransactionConfiguration.class })
public final class DistlockAutoConfiguration {

}

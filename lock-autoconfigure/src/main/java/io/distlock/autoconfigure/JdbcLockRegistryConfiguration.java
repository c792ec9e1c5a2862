package io.distlock.autoconfigure;

import javax.sql.DataSource;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.jdbc.EmbeddedDatabaseConnection;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

import io.distlock.core.LockListener;
import io.distlock.core.LockRegistry;
import io.distlock.jdbc.PostgresLockRegistry;
import io.distlock.jdbc.PostgresLockRegistryBuilder;
import io.distlock.listener.CompositeLockListener;

/**
 * The lock registry on the application's PostgreSQL {@link DataSource}, when
 * {@code distlock.store=jdbc}, or when the store is not set and the application has a
 * {@code DataSource} but no Redis; none when the application defines its own. Imported before
 * the Redis registry's configuration, which then backs off.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass({ PostgresLockRegistry.class, EmbeddedDatabaseConnection.class })
class JdbcLockRegistryConfiguration {

	// After Flyway, Liquibase and the SQL scripts: the build checks the lease table they create.
	@Bean(destroyMethod = "close")
	@DependsOnDatabaseInitialization
	@ConditionalOnMissingBean(LockRegistry.class)
	@ConditionalOnSingleCandidate(DataSource.class)
	@Conditional(OnJdbcStoreCondition.class)
	PostgresLockRegistry distlockJdbcRegistry(DataSource dataSource, DistlockProperties properties,
			ObjectProvider<LockListener> listeners) {
		DistlockProperties.Jdbc jdbc = properties.getJdbc();
		boolean initialize = switch (jdbc.getInitializeSchema()) {
			case ALWAYS -> true;
			case NEVER -> false;
			case EMBEDDED -> EmbeddedDatabaseConnection.isEmbedded(dataSource);
		};
		PostgresLockRegistryBuilder builder = PostgresLockRegistry.builder(dataSource)
			.tableName(jdbc.getTableName())
			.initializeSchema(initialize)
			.leaseTime(properties.getLeaseTime())
			.renewalInterval(properties.getRenewalInterval())
			.waitStrategy(properties.getWaitStrategy())
			.maxLeaseTime(properties.getMaxLeaseTime())
			.maxKeyBytes(properties.getMaxKeyBytes())
			.hashLongKeys(properties.isHashLongKeys())
			.localHandoff(properties.getLocalHandoff().getMaxHandoffs(), properties.getLocalHandoff().getMaxTime())
			.listener(CompositeLockListener.of(listeners.orderedStream().toList()));
		if (properties.getRetryInterval() != null) {
			builder.retryInterval(properties.getRetryInterval());
		}
		return builder.build();
	}

}

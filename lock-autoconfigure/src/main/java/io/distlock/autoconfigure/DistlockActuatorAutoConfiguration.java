package io.distlock.autoconfigure;

import java.util.HashSet;
import java.util.Set;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.distlock.actuate.LockRegistryHealthIndicator;
import io.distlock.actuate.LocksEndpoint;
import io.distlock.core.LockRegistry;
import io.distlock.core.LockRegistryIntrospection;
import io.distlock.interceptor.LockDefinitions;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration Auto-configuration}
 * for the {@code locks} Actuator endpoint and the lock store health indicator, for any
 * {@link LockRegistry} bean: the held locks, the losses and the store check come from its
 * {@link LockRegistryIntrospection} when it implements it.
 */
@AutoConfiguration(after = DistlockAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "distlock.enabled", matchIfMissing = true)
public final class DistlockActuatorAutoConfiguration {

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
	@ConditionalOnAvailableEndpoint(LocksEndpoint.class)
	@EnableConfigurationProperties(LocksEndpointProperties.class)
	static class EndpointConfiguration {

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnBean(LockDefinitions.class)
		LocksEndpoint locksEndpoint(LockDefinitions definitions, ObjectProvider<LockRegistry> registry,
				LocksEndpointProperties properties) {
			// A registry that cannot describe itself still gets the definitions.
			LockRegistry unique = registry.getIfUnique();
			return new LocksEndpoint(definitions,
					(unique instanceof LockRegistryIntrospection introspection) ? introspection : null,
					properties.getShowValues(), properties.getRoles());
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
	@ConditionalOnSingleCandidate(LockRegistry.class)
	@ConditionalOnEnabledHealthIndicator("distlock")
	static class HealthConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = "distlockHealthIndicator")
		LockRegistryHealthIndicator distlockHealthIndicator(LockRegistry registry) {
			return new LockRegistryHealthIndicator(registry);
		}

	}

	/**
	 * Properties of the {@code locks} endpoint ({@code management.endpoint.locks.*}).
	 */
	@ConfigurationProperties("management.endpoint.locks")
	public static class LocksEndpointProperties {

		/**
		 * When to show the evaluated keys of held locks: never, when-authorized or always.
		 */
		private Show showValues = Show.NEVER;

		/**
		 * Roles that may see evaluated keys when show-values is when-authorized.
		 */
		private Set<String> roles = new HashSet<>();

		public Show getShowValues() {
			return this.showValues;
		}

		public void setShowValues(Show showValues) {
			this.showValues = showValues;
		}

		public Set<String> getRoles() {
			return this.roles;
		}

		public void setRoles(Set<String> roles) {
			this.roles = roles;
		}

	}

}

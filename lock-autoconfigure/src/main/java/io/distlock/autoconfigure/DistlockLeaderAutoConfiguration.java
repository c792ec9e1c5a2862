package io.distlock.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;

import io.distlock.actuate.LeadersEndpoint;
import io.distlock.actuate.LeadershipHealthIndicator;
import io.distlock.core.LockRegistry;
import io.distlock.leader.LeaderElection;
import io.distlock.leader.LeaderElections;
import io.distlock.leader.LeaderOnlyAdvisor;
import io.distlock.leader.LeadershipEventPublisher;
import io.distlock.leader.LeadershipListener;
import io.distlock.leader.RoleLifecycles;
import io.distlock.metrics.MicrometerLeadershipListener;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration Auto-configuration}
 * for leader election: one election per role of {@code distlock.leader.roles} (and every
 * {@link LeaderElection} bean), the {@code @LeaderOnly} advice and lifecycle control, leadership
 * events, meters, the {@code leaders} endpoint and the {@code leadership} health indicator.
 */
@AutoConfiguration(after = { DistlockAutoConfiguration.class, DistlockMetricsAutoConfiguration.class })
@ConditionalOnBooleanProperty(name = "distlock.enabled", matchIfMissing = true)
public final class DistlockLeaderAutoConfiguration {

	// Nested configurations are read before these beans: they, too, ask for the registry, not the elections.
	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnSingleCandidate(LockRegistry.class)
	LeaderElections distlockLeaderElections(LockRegistry registry, DistlockProperties properties,
			ObjectProvider<LeaderElection> declared, ObjectProvider<LeadershipListener> listeners) {
		DistlockProperties.Leader leader = properties.getLeader();
		List<LeadershipListener> ordered = listeners.orderedStream().toList();
		List<LeaderElection> elections = new ArrayList<>();
		for (Map.Entry<String, DistlockProperties.Role> role : leader.getRoles().entrySet()) {
			if (!role.getValue().isEnabled()) {
				continue;
			}
			var builder = LeaderElection.builder(registry, role.getKey())
				.retryInterval(leader.getRetryInterval())
				.renewDeadline(leader.getRenewDeadline());
			if (role.getValue().getKey() != null) {
				builder.key(role.getValue().getKey());
			}
			ordered.forEach(builder::listener);
			elections.add(builder.build());
		}
		declared.orderedStream().forEach(elections::add);
		return new LeaderElections(elections);
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static LeaderOnlyAdvisor distlockLeaderOnlyAdvisor(ObjectProvider<LeaderElections> elections,
			Environment environment) {
		// Outside @DistributedLock and @Transactional: a skipped call takes no lock, opens no transaction.
		int lockOrder = environment.getProperty("distlock.aspect-order", Integer.class,
				DistlockProperties.DEFAULT_ASPECT_ORDER);
		// Registered without a registry too: a @LeaderOnly method must then fail startup, not run everywhere.
		return new LeaderOnlyAdvisor(elections::getIfAvailable, lockOrder - 1);
	}

	@Bean
	LeadershipEventPublisher distlockLeadershipEventPublisher(ApplicationEventPublisher publisher) {
		return new LeadershipEventPublisher(publisher);
	}

	@Bean
	RoleLifecycles distlockRoleLifecycles(ListableBeanFactory beanFactory, ObjectProvider<LeaderElections> elections) {
		return new RoleLifecycles(beanFactory, elections::getIfAvailable);
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterRegistry.class)
	@ConditionalOnBean(MeterRegistry.class)
	@ConditionalOnSingleCandidate(LockRegistry.class)
	@ConditionalOnBooleanProperty(name = "distlock.metrics.enabled", matchIfMissing = true)
	static class MeterConfiguration {

		@Bean
		@ConditionalOnMissingBean
		MicrometerLeadershipListener distlockLeadershipMetricsListener(MeterRegistry meterRegistry) {
			return new MicrometerLeadershipListener(meterRegistry);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
	@ConditionalOnAvailableEndpoint(LeadersEndpoint.class)
	@ConditionalOnSingleCandidate(LockRegistry.class)
	static class EndpointConfiguration {

		@Bean
		@ConditionalOnMissingBean
		LeadersEndpoint leadersEndpoint(LeaderElections elections) {
			return new LeadersEndpoint(elections);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
	@ConditionalOnEnabledHealthIndicator("leadership")
	@ConditionalOnSingleCandidate(LockRegistry.class)
	static class HealthConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = "leadershipHealthIndicator")
		LeadershipHealthIndicator leadershipHealthIndicator(LeaderElections elections) {
			return new LeadershipHealthIndicator(elections);
		}

	}

}

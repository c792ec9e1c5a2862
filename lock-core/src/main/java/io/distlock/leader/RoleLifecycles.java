package io.distlock.leader;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.Lifecycle;
import org.springframework.context.SmartLifecycle;

import io.distlock.annotation.LeaderOnly;
import io.distlock.core.LockConfigurationException;

/**
 * Starts the {@link Lifecycle} beans annotated with {@link LeaderOnly @LeaderOnly} (on their
 * class or their {@code @Bean} method) when this instance is granted their role, in the order
 * the beans were defined, and stops them, in reverse order, when it is revoked. Checks at
 * startup that each names a role an election decides and does not start by itself.
 */
public class RoleLifecycles implements LeadershipListener, SmartInitializingSingleton {

	private final ListableBeanFactory beanFactory;

	private final Supplier<@Nullable LeaderElections> elections;

	private final Map<String, List<Lifecycle>> byRole = new LinkedHashMap<>();

	/**
	 * Create the listener.
	 * @param beanFactory the factory whose annotated beans it starts and stops
	 * @param elections the application's elections, asked for after the singletons exist;
	 * {@code null} when the application has none (no single lock registry)
	 */
	public RoleLifecycles(ListableBeanFactory beanFactory, Supplier<@Nullable LeaderElections> elections) {
		this.beanFactory = beanFactory;
		this.elections = elections;
	}

	@Override
	public void afterSingletonsInstantiated() {
		for (String name : this.beanFactory.getBeanNamesForAnnotation(LeaderOnly.class)) {
			LeaderOnly annotation = this.beanFactory.findAnnotationOnBean(name, LeaderOnly.class);
			Object bean = this.beanFactory.getBean(name);
			if (!(bean instanceof Lifecycle lifecycle)) {
				throw new LockConfigurationException("Bean '" + name + "' is annotated with @LeaderOnly but is not a "
						+ "Lifecycle: annotate its methods instead, or implement SmartLifecycle");
			}
			String role = annotation.role();
			LeaderElections known = this.elections.get();
			if (known == null || known.find(role).isEmpty()) {
				throw new LockConfigurationException("@LeaderOnly bean '" + name + "' names role '" + role + "', which no "
						+ "leader election decides: configure distlock.leader.roles." + role
						+ " or declare a LeaderElection bean for it (leader election needs one LockRegistry bean)");
			}
			if (lifecycle instanceof SmartLifecycle smart && smart.isAutoStartup()) {
				throw new LockConfigurationException("@LeaderOnly bean '" + name + "' starts by itself (isAutoStartup() is "
						+ "true), so it would run on every instance: return false from isAutoStartup() (or set "
						+ "autoStartup=false); distlock starts it when this instance is granted role '" + role + "'");
			}
			this.byRole.computeIfAbsent(role, (key) -> new ArrayList<>()).add(lifecycle);
		}
	}

	@Override
	public void granted(Leadership leadership) {
		for (Lifecycle lifecycle : this.byRole.getOrDefault(leadership.role(), List.of())) {
			if (!lifecycle.isRunning()) {
				lifecycle.start();
			}
		}
	}

	@Override
	public void revoked(Leadership leadership, RevocationReason reason) {
		List<Lifecycle> lifecycles = new ArrayList<>(this.byRole.getOrDefault(leadership.role(), List.of()));
		RuntimeException failure = null;
		for (int i = lifecycles.size() - 1; i >= 0; i--) {
			// Stop every bean even when one fails: none may go on running on a former leader.
			try {
				if (lifecycles.get(i).isRunning()) {
					lifecycles.get(i).stop();
				}
			}
			catch (RuntimeException ex) {
				if (failure == null) {
					failure = ex;
				}
				else {
					failure.addSuppressed(ex);
				}
			}
		}
		if (failure != null) {
			throw failure;
		}
	}

}

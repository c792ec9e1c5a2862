package io.distlock.interceptor;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.aop.Advisor;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.transaction.interceptor.TransactionInterceptor;

import io.distlock.annotation.DistributedLock;
import io.distlock.core.LockConfigurationException;
import io.distlock.core.LockFeature;
import io.distlock.core.LockRegistry;
import io.distlock.core.LockRegistryIntrospection;

/**
 * Checks every {@code @DistributedLock} method of every bean at startup, so that a mistake in
 * an annotation stops the application instead of the first call; then checks that a
 * {@link LockRegistry} exists, that it offers every kind of lock the annotations ask for (see
 * {@link LockRegistryIntrospection#supportedFeatures()}), and that the lock advice runs outside
 * transactions.
 */
public class LockMethodValidator implements BeanPostProcessor, SmartInitializingSingleton, BeanFactoryAware {

	private final LockDefinitions definitions;

	private final int lockOrder;

	private final Set<String> annotatedBeans = ConcurrentHashMap.newKeySet();

	private ListableBeanFactory beanFactory;

	/**
	 * Create a validator.
	 * @param definitions where checked definitions are kept
	 * @param lockOrder the order of the lock advisor
	 */
	public LockMethodValidator(LockDefinitions definitions, int lockOrder) {
		this.definitions = definitions;
		this.lockOrder = lockOrder;
	}

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		this.beanFactory = (beanFactory instanceof ListableBeanFactory listable) ? listable : null;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		Class<?> targetClass = AopProxyUtils.ultimateTargetClass(bean);
		Map<Method, DistributedLock> annotated = MethodIntrospector.selectMethods(targetClass,
				(MethodIntrospector.MetadataLookup<DistributedLock>) (method) -> AnnotatedElementUtils
					.findMergedAnnotation(method, DistributedLock.class));
		for (Method method : annotated.keySet()) {
			try {
				this.definitions.find(method, targetClass);
			}
			catch (LockConfigurationException ex) {
				throw new LockConfigurationException("Invalid lock on bean '" + beanName + "': " + ex.getMessage(), ex);
			}
		}
		if (!annotated.isEmpty()) {
			this.annotatedBeans.add(beanName);
		}
		return bean;
	}

	@Override
	public void afterSingletonsInstantiated() {
		if (this.annotatedBeans.isEmpty() || this.beanFactory == null) {
			return;
		}
		if (this.beanFactory.getBeanNamesForType(LockRegistry.class).length == 0) {
			throw new LockConfigurationException("Beans " + this.annotatedBeans + " have @DistributedLock methods "
					+ "but there is no LockRegistry bean: configure Redis (spring.data.redis.*) so that a "
					+ "RedisConnectionFactory exists, or define a LockRegistry bean");
		}
		this.beanFactory.getBeansOfType(LockRegistry.class, false, false).forEach(this::requireFeatures);
		for (Advisor advisor : this.beanFactory.getBeansOfType(Advisor.class, false, false).values()) {
			if (advisor.getAdvice() instanceof TransactionInterceptor && advisor instanceof Ordered ordered
					&& ordered.getOrder() <= this.lockOrder) {
				throw new LockConfigurationException("distlock.aspect-order '" + this.lockOrder
						+ "' must be lower than the transaction advisor's order '" + ordered.getOrder()
						+ "': the lock must be taken before a transaction begins and released after it ends, "
						+ "or a second holder can read data the first has not committed yet");
			}
		}
	}

	/**
	 * Refuse an attribute that asks for a kind of lock the registry does not offer, such as
	 * {@code fair} with Redlock, or a fixed lease or hold-at-least longer than it grants, so that
	 * it fails now rather than at its first call. A registry that does not implement
	 * {@link LockRegistryIntrospection} is taken to offer every kind.
	 */
	private void requireFeatures(String beanName, LockRegistry registry) {
		if (!(registry instanceof LockRegistryIntrospection introspection)) {
			return;
		}
		Set<LockFeature> features = introspection.supportedFeatures();
		for (LockDefinition definition : this.definitions.all()) {
			if (definition.fair() && !features.contains(LockFeature.FAIR)) {
				LockAnnotation annotation = LockAnnotation.find(definition.method(), definition.targetClass());
				throw new LockConfigurationException(annotation.describe(definition.method(), definition.targetClass())
						+ ": attribute " + annotation.attribute("fair")
						+ " asks for a fair lock, which LockRegistry bean '" + beanName + "' ("
						+ registry.getClass().getSimpleName() + ") does not offer; remove the attribute or use "
						+ "a registry with fair locks (RedisLockRegistry, on one Redis, offers them; Redlock over "
						+ "distlock.redlock.nodes does not)");
			}
			Duration maxLease = introspection.maxLeaseTime().orElse(null);
			requireAtMost(definition, "leaseTime", definition.leaseTime(), maxLease, beanName, registry);
			requireAtMost(definition, "holdAtLeast", definition.holdAtLeast(), maxLease, beanName, registry);
		}
	}

	private static void requireAtMost(LockDefinition definition, String attribute, Duration time, Duration maxLease,
			String beanName, LockRegistry registry) {
		if (time != null && maxLease != null && time.compareTo(maxLease) > 0) {
			LockAnnotation annotation = LockAnnotation.find(definition.method(), definition.targetClass());
			throw new LockConfigurationException(annotation.describe(definition.method(), definition.targetClass())
					+ ": attribute " + annotation.attribute(attribute) + " '" + time
					+ "' is longer than the longest lease LockRegistry bean '" + beanName
					+ "' (" + registry.getClass().getSimpleName() + ") grants ('" + maxLease + "'); shorten it, or"
					+ " raise distlock.max-lease-time (with Redlock, also distlock.redlock.restart-delay)");
		}
	}

}

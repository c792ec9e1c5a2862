package io.distlock.autoconfigure;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;

import io.distlock.core.LockRegistry;
import io.distlock.core.LockRegistryIntrospection;

/**
 * With {@code distlock.fail-fast=true}, stops startup when the lock registry's store does not
 * answer, once every bean is created: the registry's own bounded check
 * ({@link LockRegistryIntrospection#checkStore()}, about a second), the same one the health
 * component runs. A registry that cannot be checked (no {@code LockRegistryIntrospection}) or
 * no registry at all stops startup too, as fail-fast was asked for and cannot be kept.
 */
final class LockStoreStartupCheck implements SmartInitializingSingleton {

	private static final String PROPERTY = "distlock.fail-fast";

	private final ObjectProvider<LockRegistry> registries;

	LockStoreStartupCheck(ObjectProvider<LockRegistry> registries) {
		this.registries = registries;
	}

	@Override
	public void afterSingletonsInstantiated() {
		LockRegistry registry = this.registries.getIfUnique();
		if (registry == null) {
			throw new InvalidLockPropertyException(PROPERTY, true, "needs one LockRegistry bean to check, and "
					+ "there is none or more than one; define one, or set " + PROPERTY + "=false");
		}
		if (!(registry instanceof LockRegistryIntrospection introspection)) {
			throw new InvalidLockPropertyException(PROPERTY, true,
					"needs a lock registry that can check its store, and " + registry.getClass().getName()
							+ " does not implement " + LockRegistryIntrospection.class.getName()
							+ "; implement it, or set " + PROPERTY + "=false");
		}
		try {
			introspection.checkStore();
		}
		catch (RuntimeException ex) {
			throw new LockStoreUnavailableException(
					"stops startup when the store that holds the locks does not answer, and it did not ("
							+ StoreProbes.describe(ex)
							+ "). Start the Redis that holds the locks or fix spring.data.redis.* (or "
							+ "distlock.redlock.nodes), or set " + PROPERTY + "=false to start anyway: the distlock "
							+ "health component then reports DOWN until the store answers",
					ex);
		}
	}

}

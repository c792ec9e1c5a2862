package io.distlock.contract;

import java.time.Duration;

import io.distlock.core.LockListener;
import io.distlock.engine.AbstractLockRegistry;
import io.distlock.test.contract.AbstractLockRegistryContractTests;
import io.distlock.test.memory.InMemoryLockRegistry;

/**
 * The contract on the in-memory registry; its registries in one test are peers on one store.
 */
class InMemoryLockRegistryContractTests extends AbstractLockRegistryContractTests {

	private InMemoryLockRegistry first;

	@Override
	public AbstractLockRegistry createRegistry(Duration leaseTime) {
		if (this.first == null) {
			this.first = new InMemoryLockRegistry(leaseTime, LockListener.NONE);
			return this.first;
		}
		return this.first.peer(leaseTime);
	}

	@Override
	public void deleteInStore(AbstractLockRegistry registry, String key) {
		((InMemoryLockRegistry) registry).forceDelete(key);
	}

	@Override
	public boolean isHeldInStore(AbstractLockRegistry registry, String key) {
		return ((InMemoryLockRegistry) registry).isHeldInStore(key);
	}

}

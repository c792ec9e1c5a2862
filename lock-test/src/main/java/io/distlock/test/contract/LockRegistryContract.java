package io.distlock.test.contract;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.function.Supplier;

import io.distlock.core.DistLock;
import io.distlock.engine.AbstractLockRegistry;

import static io.distlock.test.contract.ContractSteps.tryAndUnlock;
import static org.awaitility.Awaitility.await;

/**
 * What every subject of the contract needs from the store under test: registries on one shared
 * store (two registries stand for two processes), a way to delete a key behind the holder's back
 * and a way to see whether the store holds a key. {@link AbstractLockRegistryContractTests}
 * supplies the rest; a store's test class extends it and implements the store's hooks.
 */
interface LockRegistryContract {

	/**
	 * Create a registry on the shared store.
	 * @param leaseTime the lease of watchdog-renewed grants
	 * @return a new registry
	 */
	AbstractLockRegistry createRegistry(Duration leaseTime);

	/**
	 * Delete the key's grant in the store, as an operator would.
	 * @param registry the registry whose grant it is
	 * @param key the key
	 */
	void deleteInStore(AbstractLockRegistry registry, String key);

	/**
	 * Make the holder's grant of the key vanish from the store so that its next renewal is
	 * refused: by default an operator's delete. A store whose renewal re-creates a missing key
	 * (Redlock) overrides it.
	 * @param registry the registry whose grant it is
	 * @param key the key
	 */
	default void loseInStore(AbstractLockRegistry registry, String key) {
		deleteInStore(registry, key);
	}

	/**
	 * Return whether some grant holds the key in the store.
	 * @param registry a registry on the store
	 * @param key the key
	 * @return whether the key is held
	 */
	boolean isHeldInStore(AbstractLockRegistry registry, String key);

	/**
	 * Return whether the registry offers fair and read/write locks ({@code RedlockRegistry}
	 * refuses both); the tests of those locks are skipped when it does not.
	 * @return whether fair and read/write locks are offered
	 */
	default boolean offersFairAndReadWriteLocks() {
		return true;
	}

	/**
	 * Wait until another process's writer of the key has marked in the store that it waits. By
	 * default only until it has started; a store that can show the mark overrides this so that
	 * the downgrade is known to come after it.
	 * @param registry the waiting writer's registry
	 * @param key the key
	 * @throws InterruptedException if interrupted
	 */
	default void awaitWriterWaiting(AbstractLockRegistry registry, String key) throws InterruptedException {
		await().atMost(Duration.ofSeconds(5)).until(() -> registry.localKeyCount() > 0);
	}

	/**
	 * Create a registry on the shared store that the test closes after it runs.
	 * @param leaseTime the lease of watchdog-renewed grants
	 * @return the registry
	 */
	AbstractLockRegistry registry(Duration leaseTime);

	/**
	 * Create a registry with a 30s lease that the test closes after it runs.
	 * @return the registry
	 */
	default AbstractLockRegistry registry() {
		return registry(Duration.ofSeconds(30));
	}

	/**
	 * Return a key no other test uses.
	 * @return a random key
	 */
	String randomKey();

	/**
	 * Return a pool for the other threads of a test, stopped after it runs.
	 * @return the pool
	 */
	ExecutorService executor();

	/**
	 * Return whether another thread gets the lock at once, letting it go again if so. The lock
	 * is obtained on that thread, as a caller there would.
	 * @param lock obtains the lock, such as {@code () -> other.obtainReadWrite(key).writeLock()}
	 * @return whether the other thread got the lock
	 * @throws Exception if the other thread failed or was interrupted
	 */
	default boolean anotherThreadGets(Supplier<DistLock> lock) throws Exception {
		return executor().submit(() -> tryAndUnlock(lock.get())).get();
	}

	/**
	 * Return a thread of its own, stopped after the test, for a holder whose steps the test runs
	 * one by one.
	 * @return a single-thread executor
	 */
	ExecutorService newHolderThread();

}

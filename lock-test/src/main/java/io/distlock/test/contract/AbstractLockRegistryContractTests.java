package io.distlock.test.contract;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.distlock.engine.AbstractLockRegistry;
import io.distlock.test.registry.LockRegistries;

/**
 * The behaviour every registry promises, in the style of ShedLock's provider suite: extend it in
 * your own tests to check a {@code LockRegistry} of your own (on a store of your own) against
 * the same contract that distlock's Redis, Redlock and in-memory registries pass.
 * <p>
 * A subclass supplies registries that share one store (two registries stand for two
 * processes), a way to delete a key behind the holder's back and a way to see whether the store
 * holds a key:
 *
 * <pre class="code">
 * class MyLockRegistryContractTests extends AbstractLockRegistryContractTests {
 *
 *     public AbstractLockRegistry createRegistry(Duration leaseTime) {
 *         return new MyLockRegistry(store, leaseTime);
 *     }
 *
 *     public void deleteInStore(AbstractLockRegistry registry, String key) {
 *         store.delete(key);
 *     }
 *
 *     public boolean isHeldInStore(AbstractLockRegistry registry, String key) {
 *         return store.exists(key);
 *     }
 * }
 * </pre>
 *
 * The tests live in one interface per subject, each a file of this package:
 * {@code ExclusionContract}, {@code ReentrancyContract}, {@code FencingTokenContract},
 * {@code LostLeaseContract}, {@code LeaseTimeContract}, {@code ReleaseContract},
 * {@code FairLockContract}, {@code MultiLockContract}, {@code ReadWriteLockContract},
 * {@code DowngradeContract}, {@code InterruptionContract} and {@code AsyncContract}. The hooks
 * with defaults ({@code loseInStore}, {@code offersFairAndReadWriteLocks},
 * {@code awaitWriterWaiting}) are described in {@code LockRegistryContract}.
 * <p>
 * It needs JUnit Jupiter, AssertJ and Awaitility, which {@code distlock-test} brings.
 */
@Timeout(60)
public abstract class AbstractLockRegistryContractTests implements ExclusionContract, ReentrancyContract,
		FencingTokenContract, LostLeaseContract, LeaseTimeContract, ReleaseContract, FairLockContract,
		MultiLockContract, ReadWriteLockContract, DowngradeContract, InterruptionContract, AsyncContract {

	@RegisterExtension
	final LockRegistries registries = new LockRegistries();

	private final List<ExecutorService> holders = new CopyOnWriteArrayList<>();

	@Override
	public final AbstractLockRegistry registry(Duration leaseTime) {
		return this.registries.add(createRegistry(leaseTime));
	}

	@Override
	public final String randomKey() {
		return this.registries.randomKey();
	}

	@Override
	public final ExecutorService executor() {
		return this.registries.executor();
	}

	@Override
	public final ExecutorService newHolderThread() {
		ExecutorService holder = Executors.newSingleThreadExecutor();
		this.holders.add(holder);
		return holder;
	}

	/**
	 * Stop the holders' threads; the pool and then the registries are stopped after this.
	 */
	@AfterEach
	void stopHolders() {
		this.holders.forEach(ExecutorService::shutdownNow);
	}

}

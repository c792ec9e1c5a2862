package io.distlock.test.contract;

import java.time.Duration;

import io.distlock.core.DistLock;
import io.distlock.engine.AbstractLockRegistry;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * One random key's read and write locks, on a registry and on a second registry of the same
 * store (another process, made when first asked for), for the read/write subjects of the
 * contract. Taking one skips the test where the registry does not offer read/write locks.
 */
final class ReadWriteKey {

	private final LockRegistryContract contract;

	private final AbstractLockRegistry registry;

	private final String key;

	private AbstractLockRegistry other;

	private ReadWriteKey(LockRegistryContract contract, AbstractLockRegistry registry) {
		this.contract = contract;
		this.registry = registry;
		this.key = contract.randomKey();
	}

	/**
	 * Take a key on a registry with a 30s lease, skipping the test unless read/write locks are
	 * offered.
	 */
	static ReadWriteKey on(LockRegistryContract contract) {
		return on(contract, Duration.ofSeconds(30));
	}

	/**
	 * Take a key on a registry with the given lease, skipping the test unless read/write locks
	 * are offered.
	 */
	static ReadWriteKey on(LockRegistryContract contract, Duration leaseTime) {
		assumeTrue(contract.offersFairAndReadWriteLocks(), "fair and read/write locks are not offered");
		return new ReadWriteKey(contract, contract.registry(leaseTime));
	}

	AbstractLockRegistry registry() {
		return this.registry;
	}

	String key() {
		return this.key;
	}

	DistLock write() {
		return this.registry.obtainReadWrite(this.key).writeLock();
	}

	DistLock read() {
		return this.registry.obtainReadWrite(this.key).readLock();
	}

	/** The other process's registry on the same store, made on first use. */
	synchronized AbstractLockRegistry other() {
		if (this.other == null) {
			this.other = this.contract.registry();
		}
		return this.other;
	}

	DistLock otherWrite() {
		return other().obtainReadWrite(this.key).writeLock();
	}

	DistLock otherRead() {
		return other().obtainReadWrite(this.key).readLock();
	}

	/** Whether a thread of the other process gets the write lock at once (letting it go again). */
	boolean otherProcessGetsWrite() throws Exception {
		AbstractLockRegistry other = other();
		return this.contract.anotherThreadGets(() -> other.obtainReadWrite(this.key).writeLock());
	}

	/** Whether a thread of the other process gets the read lock at once (letting it go again). */
	boolean otherProcessGetsRead() throws Exception {
		AbstractLockRegistry other = other();
		return this.contract.anotherThreadGets(() -> other.obtainReadWrite(this.key).readLock());
	}

	/** Whether another thread of this process gets the write lock at once (letting it go again). */
	boolean anotherThreadGetsWrite() throws Exception {
		return this.contract.anotherThreadGets(this::write);
	}

}

package io.distlock.engine;

import io.distlock.core.DistLock;
import io.distlock.core.DistReadWriteLock;

/**
 * The read and write locks of one key.
 */
final class RegistryReadWriteLock implements DistReadWriteLock {

	private final String key;

	private final DistLock readLock;

	private final DistLock writeLock;

	RegistryReadWriteLock(String key, DistLock readLock, DistLock writeLock) {
		this.key = key;
		this.readLock = readLock;
		this.writeLock = writeLock;
	}

	@Override
	public String key() {
		return this.key;
	}

	@Override
	public DistLock readLock() {
		return this.readLock;
	}

	@Override
	public DistLock writeLock() {
		return this.writeLock;
	}

}

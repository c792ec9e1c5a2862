package io.distlock.core;

/**
 * A kind of lock that not every {@link LockRegistry} offers. A registry says which it offers
 * through {@link LockRegistryIntrospection#supportedFeatures()}, so that a
 * {@code @DistributedLock} asking for one it lacks fails at startup rather than at its first call.
 */
public enum LockFeature {

	/**
	 * Fair locks: {@link LockRegistry#obtainFair(String)}, {@code @DistributedLock(fair = true)}
	 * and {@link LockRequest#fair(boolean)}.
	 */
	FAIR,

	/** Read/write locks: {@link LockRegistry#obtainReadWrite(String)}. */
	READ_WRITE

}

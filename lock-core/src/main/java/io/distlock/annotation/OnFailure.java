package io.distlock.annotation;

/**
 * What a {@link DistributedLock} method does when its lock is not acquired within the wait
 * time (or the lock store cannot be reached).
 */
public enum OnFailure {

	/** Throw {@link io.distlock.core.LockAcquisitionException}; the method does not run. */
	THROW,

	/**
	 * Do not run the method and return nothing: {@code null}, an empty {@code Optional}, or a
	 * completed future of {@code null}. For scheduled jobs that must run on one instance only.
	 * Methods returning a primitive other than {@code void} cannot skip and are refused at
	 * startup.
	 */
	SKIP,

	/**
	 * Call the method named by {@link DistributedLock#fallbackMethod()} instead, with the same
	 * arguments, optionally followed by the {@link io.distlock.core.LockAcquisitionException}.
	 */
	FALLBACK

}

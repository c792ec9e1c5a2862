package io.distlock.core;

import java.lang.reflect.UndeclaredThrowableException;
import java.util.concurrent.Callable;

/**
 * Holds a lock for the length of a task on the calling thread: what
 * {@link LockRegistry#executeLocked(LockRequest, Callable)} does over any registry's
 * {@link LockRegistry#acquire(LockRequest)}. The lease is bound to {@link LockContext} while the
 * task runs, and released afterwards whatever the task did.
 */
final class LockedCall {

	private LockedCall() {
	}

	static <T> T run(LockLease lease, Callable<T> task) {
		LockContext.bind(lease);
		T result;
		try {
			result = task.call();
		}
		catch (Throwable ex) {
			LockContext.unbind(lease);
			releaseAfterFailure(lease, ex);
			if (ex instanceof RuntimeException runtime) {
				throw runtime;
			}
			if (ex instanceof Error error) {
				throw error;
			}
			throw new UndeclaredThrowableException(ex);
		}
		LockContext.unbind(lease);
		lease.release();
		return result;
	}

	private static void releaseAfterFailure(LockLease lease, Throwable failure) {
		try {
			lease.release();
		}
		catch (LockLostException ex) {
			failure.addSuppressed(ex);
		}
	}

}

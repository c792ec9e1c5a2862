package io.distlock.engine;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * Bounds store calls by the caller's own deadline. A store answers with a future; the engine
 * decides how long anyone waits for it (what is left of a wait time, a lease's validity, a
 * short fixed bound for a release or a health check), never the driver's command timeout. A
 * call is sent and waited for out of reach of the calling thread's interrupt: an interrupted
 * holder's release must still reach the store, or the key stays taken for a whole lease. The
 * flag is cleared for the call and set again after it, so that the caller still sees it.
 */
final class StoreCalls {

	/**
	 * How long a release waits for the store. Past it the work under the lock is done anyway:
	 * the key expires by itself within its lease, since nobody renews it any more.
	 */
	static final Duration RELEASE_TIMEOUT = Duration.ofSeconds(1);

	/** How long a health check waits for the store. */
	static final Duration CHECK_TIMEOUT = Duration.ofSeconds(1);

	/**
	 * How long past its wait time an acquisition may wait for the store's answer to its last
	 * attempt: enough for a reply already on its way, so that a wait of zero can still be answered.
	 */
	static final Duration ATTEMPT_SLACK = Duration.ofMillis(150);

	/** The shortest bound of any call: below it a healthy store could not answer. */
	static final Duration MIN_TIMEOUT = Duration.ofMillis(100);

	private StoreCalls() {
	}

	/**
	 * Return the bound for a call that must end by the given {@link System#nanoTime()} deadline,
	 * but never below {@link #MIN_TIMEOUT}.
	 */
	static Duration until(long deadlineNanos) {
		long left = deadlineNanos - System.nanoTime();
		return (left > MIN_TIMEOUT.toNanos()) ? Duration.ofNanos(left) : MIN_TIMEOUT;
	}

	/**
	 * Run a step that may send store calls on the calling thread with the thread's interrupt
	 * flag cleared, and set it again afterwards if it was set before or during the step. A driver
	 * may look at the flag where it blocks (Lettuce does while it opens a connection, and its
	 * synchronous calls cancel the command): an interrupted thread's acquisition or release must
	 * still reach the store, and the caller must still see its interrupt.
	 * @param step what sends the calls
	 * @return what the step returned
	 */
	static <T> T shielded(Supplier<T> step) {
		boolean interrupted = Thread.interrupted();
		try {
			return step.get();
		}
		finally {
			if (Thread.interrupted() || interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * Send a call out of reach of the calling thread's interrupt and wait for its answer at
	 * most the given time.
	 * @throws RuntimeException the store's failure, or a {@link StoreTimeoutException}
	 */
	static <T> T await(Supplier<CompletableFuture<T>> call, Duration bound) {
		return await(shielded(call), bound);
	}

	/**
	 * Wait for the answer to a call already sent at most the given time. An interrupt does not
	 * end the wait (the caller must learn the call's outcome); it is kept in the thread's flag.
	 * @throws RuntimeException the store's failure, or a {@link StoreTimeoutException}
	 */
	static <T> T await(CompletableFuture<T> sent, Duration bound) {
		boolean interrupted = false;
		try {
			long deadline = System.nanoTime() + bound.toNanos();
			while (true) {
				try {
					return sent.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
				}
				catch (InterruptedException ex) {
					// Deliberately not cancelled: the caller must learn the call's outcome.
					interrupted = true;
				}
				catch (ExecutionException ex) {
					throw asRuntime(ex.getCause());
				}
				catch (TimeoutException ex) {
					throw new StoreTimeoutException(bound);
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * Return the failure a future completed with, without the {@link CompletionException}
	 * around it.
	 */
	static Throwable unwrap(Throwable failure) {
		Throwable cause = failure;
		while ((cause instanceof CompletionException || cause instanceof ExecutionException)
				&& cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause;
	}

	static RuntimeException asRuntime(Throwable failure) {
		Throwable cause = unwrap(failure);
		if (cause instanceof RuntimeException runtime) {
			return runtime;
		}
		if (cause instanceof Error error) {
			throw error;
		}
		return new IllegalStateException(cause);
	}

	/**
	 * The store did not answer within the caller's bound.
	 */
	static final class StoreTimeoutException extends RuntimeException {

		private static final long serialVersionUID = 1L;

		StoreTimeoutException(Duration bound) {
			super("The lock store did not answer within " + Math.max(1, bound.toMillis()) + "ms");
		}

	}

}

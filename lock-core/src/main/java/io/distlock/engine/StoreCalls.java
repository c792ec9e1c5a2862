package io.distlock.engine;

import java.time.Duration;
import java.util.function.Supplier;

/**
 * Runs store calls out of reach of the calling thread's interrupt. A driver that sees the
 * interrupt flag may cancel a command it has not written yet, or throw without knowing whether
 * the server applied it: a release would then leave the key for a whole lease, an acquisition
 * might hold a key nobody knows of. The flag is cleared for the call and set again after it, so
 * that the caller still sees the interrupt.
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

	static <T> T uninterrupted(Supplier<T> call) {
		boolean interrupted = Thread.interrupted();
		try {
			return call.get();
		}
		finally {
			if (interrupted || Thread.interrupted()) {
				Thread.currentThread().interrupt();
			}
		}
	}

}

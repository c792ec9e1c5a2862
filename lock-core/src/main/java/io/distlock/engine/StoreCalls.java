package io.distlock.engine;

import java.util.function.Supplier;

/**
 * Runs store calls out of reach of the calling thread's interrupt. A driver that sees the
 * interrupt flag may cancel a command it has not written yet, or throw without knowing whether
 * the server applied it: a release would then leave the key for a whole lease, an acquisition
 * might hold a key nobody knows of. The flag is cleared for the call and set again after it, so
 * that the caller still sees the interrupt.
 */
final class StoreCalls {

	private StoreCalls() {
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

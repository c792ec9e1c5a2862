package io.distlock.benchmark;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * The work done under the lock: a spin for sections under a millisecond (a park would oversleep
 * them), a park for longer ones.
 */
final class CriticalSection {

	private CriticalSection() {
	}

	static void run(Duration section) {
		long nanos = section.toNanos();
		if (nanos == 0) {
			return;
		}
		if (nanos >= 1_000_000) {
			LockSupport.parkNanos(nanos);
			return;
		}
		long until = System.nanoTime() + nanos;
		while (System.nanoTime() < until) {
			Thread.onSpinWait();
		}
	}

}

package io.distlock.benchmark;

import java.time.Duration;

/**
 * One workload: how many threads (or reactive subscribers), on distinct keys or one hot key, with
 * how long a critical section.
 *
 * @param name the name in the report
 * @param jvms how many JVMs run it (more than one: child processes)
 * @param threads the threads in each JVM, or the subscribers when {@code reactive}
 * @param hotKey whether all threads lock one key
 * @param criticalSection how long each holds the lock
 * @param reactive whether the workload is reactive subscribers, each resubscribing to a locked
 * {@code Mono} whose section is a non-blocking delay, run by the {@link ReactiveContender}s
 * instead of the blocking {@link Contender}s
 */
record Scenario(String name, int jvms, int threads, boolean hotKey, Duration criticalSection, boolean reactive) {

	/** The scenarios of the comparison. */
	static final java.util.List<Scenario> ALL = java.util.List.of(
			new Scenario("1 thread, distinct keys", 1, 1, false, Duration.ZERO),
			new Scenario("16 threads, distinct keys", 1, 16, false, Duration.ZERO),
			new Scenario("16 threads, one hot key, 200 µs section", 1, 16, true, Duration.ofNanos(200_000)),
			new Scenario("16 threads, one hot key, empty section", 1, 16, true, Duration.ZERO),
			new Scenario("2 JVMs × 8 threads, one hot key, 200 µs section", 2, 8, true, Duration.ofNanos(200_000)),
			new Scenario("64 waiters, one hot key, 1 ms section", 1, 64, true, Duration.ofMillis(1)),
			new Scenario("1,000 reactive subscribers, one hot key, 200 µs non-blocking section", 1, 1000, true,
					Duration.ofNanos(200_000), true));

	/**
	 * A workload of blocking threads.
	 */
	Scenario(String name, int jvms, int threads, boolean hotKey, Duration criticalSection) {
		this(name, jvms, threads, hotKey, criticalSection, false);
	}

	/**
	 * Return the most grants per second the critical section alone allows on a hot key.
	 * @return the bound, or infinity without a section or on distinct keys
	 */
	double bound() {
		return (this.hotKey && !this.criticalSection.isZero()) ? 1e9 / this.criticalSection.toNanos()
				: Double.POSITIVE_INFINITY;
	}

}

package io.distlock.jdbc;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Debian's libfaketime ({@code apt-get install faketime}), preloaded into a child JVM to set its
 * wall clock ({@code System.currentTimeMillis}, {@code Instant.now}) apart from the machine's by
 * a fixed offset, while its monotonic clock ({@code System.nanoTime}) and its timed waits stay true
 * ({@code FAKETIME_DONT_FAKE_MONOTONIC=1}, {@code FAKETIME_FORCE_MONOTONIC_FIX=0}).
 */
final class FakeTime {

	private static final List<Path> LIBRARIES = List.of(
			Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"),
			Path.of("/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1"));

	private FakeTime() {
	}

	/**
	 * Return why the library cannot be used, or nothing when it can.
	 */
	static Optional<String> unavailableReason() {
		return library().isPresent() ? Optional.empty()
				: Optional.of("libfaketime is not installed (apt-get install faketime) at any of " + LIBRARIES);
	}

	/**
	 * Return the environment of a child whose wall clock is the machine's plus the offset.
	 * @param offset whole minutes, negative to set the clock back
	 */
	static Map<String, String> offsetBy(Duration offset) {
		long minutes = offset.toMinutes();
		// Without FAKETIME_FORCE_MONOTONIC_FIX=0, libfaketime's pthread_cond_timedwait lengthens
		// every timed wait of the JVM (Thread.sleep(100) took 144 ms here): watchdogs run late.
		return Map.of("LD_PRELOAD", library().orElseThrow().toString(), "FAKETIME",
				((minutes < 0) ? "-" : "+") + Math.abs(minutes) + "m", "FAKETIME_DONT_FAKE_MONOTONIC", "1",
				"FAKETIME_FORCE_MONOTONIC_FIX", "0");
	}

	private static Optional<Path> library() {
		return LIBRARIES.stream().filter(Files::isReadable).findFirst();
	}

}

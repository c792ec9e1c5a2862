package io.distlock.benchmark;

import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.Test;

/**
 * The full side-by-side comparison, run only with {@code -Pbench}; writes
 * {@code target/benchmark.md} and {@code target/benchmark.svg}. Not a test of speed: it fails
 * only if a contender lets two holders in.
 */
class ComparisonBenchmark {

	@Test
	void compareSideBySide() throws Exception {
		Duration perRun = Duration.parse("PT" + System.getProperty("bench.duration", "2s").toUpperCase());
		int rounds = Integer.parseInt(System.getProperty("bench.rounds", "5"));
		BenchmarkReport report = Comparison.run(perRun, rounds);
		report.write(Path.of("target"));
		System.out.println(report.markdown());
	}

}

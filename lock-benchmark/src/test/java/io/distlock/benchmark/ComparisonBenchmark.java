package io.distlock.benchmark;

import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.Test;

/**
 * The full side-by-side comparison, run only with {@code -Pbench}; writes
 * {@code target/benchmark.md} and {@code target/benchmark.svg}, and with
 * {@code -Ddistlock.docs.update=true} the same into {@code docs/}. Not a test of speed: it fails
 * only if a contender lets two holders in. {@code -Dbench.scenario=TEXT} runs only the scenarios
 * whose name contains the text, and then writes only under {@code target/}.
 */
class ComparisonBenchmark {

	@Test
	void compareSideBySide() throws Exception {
		Duration perRun = Duration.parse("PT" + System.getProperty("bench.duration", "2s").toUpperCase());
		int rounds = Integer.parseInt(System.getProperty("bench.rounds", "5"));
		String scenarioFilter = System.getProperty("bench.scenario", "").strip();
		BenchmarkReport report = Comparison.run(perRun, rounds, scenarioFilter);
		if (!scenarioFilter.isEmpty()) {
			// A partial run: its report stays under target/, never on the page.
			report.write(Path.of("target"));
			System.out.println(report.markdown());
			return;
		}
		report.write(Path.of("target"));
		BenchmarkPage.publish("comparison", report.markdown());
		BenchmarkPage.copy(Path.of("target", "benchmark.svg"));
		System.out.println(report.markdown());
	}

}

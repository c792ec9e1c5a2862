package io.distlock.benchmark;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.Test;

/**
 * The full side-by-side comparisons, run only with {@code -Pbench}: on Redis, writing
 * {@code target/benchmark.md} and {@code target/benchmark.svg}; on PostgreSQL, writing
 * {@code target/benchmark-jdbc.md}; and with {@code -Ddistlock.docs.update=true} each table into
 * its section of {@code docs/benchmark.md}. Not a test of speed: it fails only if a contender lets
 * two holders in. {@code -Dbench.scenario=TEXT} runs only the scenarios whose name contains the
 * text, and then writes only under {@code target/}.
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

	@Test
	void compareOnPostgres() throws Exception {
		Duration perRun = Duration.parse("PT" + System.getProperty("bench.duration", "2s").toUpperCase());
		int rounds = Integer.parseInt(System.getProperty("bench.rounds", "5"));
		String scenarioFilter = System.getProperty("bench.scenario", "").strip();
		String markdown = JdbcComparison.run(perRun, rounds, scenarioFilter).markdown();
		Files.createDirectories(Path.of("target"));
		Files.writeString(Path.of("target", "benchmark-jdbc.md"), markdown);
		if (scenarioFilter.isEmpty()) {
			BenchmarkPage.publish("jdbc-comparison", markdown);
		}
		System.out.println(markdown);
	}

}

package io.distlock.benchmark;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A short run of the PostgreSQL comparison in the default build: every contender works in every
 * scenario (two JVMs included), nobody lets two holders in, the server's statements are counted,
 * and the report renders with ratios to the best peer. The numbers mean nothing here.
 */
@Timeout(300)
class JdbcBenchmarkSmokeTests {

	@Test
	void everyJdbcContenderRunsEveryScenario() throws Exception {
		String markdown = JdbcComparison.run(Duration.ofMillis(300), 1, "").markdown();
		assertThat(markdown).contains(JdbcContenders.NAMES.toArray(String[]::new))
			.contains("| × best peer |", "| statements/grant | PostgreSQL CPU µs/grant |")
			.doesNotContain("× floor");
		for (Scenario scenario : JdbcComparison.SCENARIOS) {
			assertThat(markdown).contains(scenario.name());
		}
		assertThat(JdbcComparison.SCENARIOS).hasSize(4);
		// Every contender sends at least one statement per grant it was given alone.
		assertThat(markdown).containsPattern("\\| " + JdbcContenders.DISTLOCK.replace(" ", "\\s")
				+ " \\| \\d+ \\| [\\d.]+ \\| \\d+ \\| \\d+ \\| \\d+ \\| [1-9][\\d.]* \\|");
	}

}

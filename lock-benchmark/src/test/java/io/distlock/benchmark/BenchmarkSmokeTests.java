package io.distlock.benchmark;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A short run of the whole comparison in the default build: every contender works in every
 * scenario, nobody lets two holders in, and the report renders. The numbers mean nothing here.
 */
@Timeout(300)
class BenchmarkSmokeTests {

	@Test
	void everyContenderRunsEveryScenario() throws Exception {
		BenchmarkReport report = Comparison.run(Duration.ofMillis(200), 1);
		String markdown = report.markdown();
		assertThat(markdown).contains("distlock", "Redisson RLock", "Spring Integration (spin)",
				"Spring Integration (pub/sub)", "floor (SET NX + Lua)");
		for (Scenario scenario : Scenario.ALL) {
			assertThat(markdown).contains(scenario.name());
		}
		assertThat(report.svg()).startsWith("<svg").contains("distlock");
	}

}

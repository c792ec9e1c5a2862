package io.distlock.benchmark;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.distlock.test.redis.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A short run of the whole comparison in the default build: every contender works in every
 * scenario, nobody lets two holders in, and the report renders; and without a lock, the three
 * exclusion checks (threads, subscribers, two JVMs) fire. The numbers mean nothing here.
 */
@Timeout(300)
class BenchmarkSmokeTests {

	@Test
	void everyContenderRunsEveryScenario() throws Exception {
		BenchmarkReport report = Comparison.run(Duration.ofMillis(200), 1);
		String markdown = report.markdown();
		assertThat(markdown).contains("distlock", "Redisson RLock", "Spring Integration (spin)",
				"Spring Integration (pub/sub)", "floor (SET NX + Lua)", "distlock (ReactiveLocks)",
				"Redisson RLockReactive", ReactiveContenders.BACK_TO_BACK, Contenders.IN_PROCESS);
		// The distlock rows as a share of the reference row of the same run: the reactive one of
		// the sections back to back, the blocking one on a hot key of the in-process lock.
		assertThat(markdown).containsPattern("\\| % of reference \\|")
			.containsPattern("\\| distlock \\(ReactiveLocks\\) \\| \\d+ \\| \\d+% \\| \\d+% \\|")
			.containsPattern("\\| distlock \\| \\d+ \\| [\\d.]+ \\| \\d+% \\| \\d+% \\|");
		// The in-process reference is no distributed lock: never in a scenario of two JVMs.
		String twoJvms = markdown.substring(markdown.indexOf("2 JVMs"), markdown.indexOf("64 waiters"));
		assertThat(twoJvms).doesNotContain(Contenders.IN_PROCESS);
		// distlock without local handoff runs on one thread only, beside the defaults.
		String oneThread = markdown.substring(markdown.indexOf("1 thread"), markdown.indexOf("16 threads"));
		assertThat(oneThread).contains(Contenders.DISTLOCK_NO_HANDOFF);
		assertThat(markdown.substring(markdown.indexOf("16 threads"))).doesNotContain(Contenders.DISTLOCK_NO_HANDOFF);
		for (Scenario scenario : Scenario.ALL) {
			assertThat(markdown).contains(scenario.name());
		}
		assertThat(report.svg()).startsWith("<svg").contains("distlock");
	}

	@Test
	void theExclusionChecksSeeTwoHoldersWithoutALock() throws Exception {
		Scenario inProcess = Scenario.ALL.stream().filter((s) -> s.hotKey() && s.jvms() == 1 && !s.reactive())
			.findFirst().orElseThrow();
		Scenario reactive = Scenario.ALL.stream().filter(Scenario::reactive).findFirst().orElseThrow();
		Scenario twoJvms = Scenario.ALL.stream().filter((s) -> s.jvms() > 1).findFirst().orElseThrow();
		try (RedisServer redis = RedisServer.start(); Contender none = Contenders.noLock()) {
			ScenarioDriver.Result local = new ScenarioDriver(redis).run(inProcess, none, Duration.ofMillis(300));
			assertThat(local.exclusive()).as("counter %d after %d grants", local.counter(), local.grants()).isFalse();
			ScenarioDriver.Result subscribers = new ScenarioDriver(redis).run(reactive, ReactiveContenders.noLock(),
					Duration.ofMillis(300));
			assertThat(subscribers.exclusive())
				.as("counter %d after %d grants", subscribers.counter(), subscribers.grants())
				.isFalse();
			ScenarioDriver.Result shared = new MultiJvmDriver(redis).run(twoJvms, none.name(), Duration.ofMillis(300));
			assertThat(shared.exclusive()).as("counter %d after %d grants", shared.counter(), shared.grants()).isFalse();
			assertThat(shared.firstJvmShare()).isBetween(0.0, 1.0);
		}
	}

}

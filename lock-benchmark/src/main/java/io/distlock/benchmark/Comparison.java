package io.distlock.benchmark;

import java.io.IOException;
import java.time.Duration;
import java.util.List;

import io.distlock.test.redis.RedisServer;

/**
 * The whole comparison: every scenario, every contender, in interleaved rounds (A B C D E, then
 * again), against one fresh {@code redis-server}, so that all contenders meet the same server
 * and machine state. Scenarios of several JVMs run each contender in child processes; the
 * reactive scenario runs the reactive contenders, in the same run and on the same server.
 */
final class Comparison {

	private Comparison() {
	}

	static BenchmarkReport run(Duration perRun, int rounds) throws IOException, InterruptedException {
		return run(perRun, rounds, "");
	}

	/**
	 * Run the scenarios whose name contains the filter, all of them when it is empty.
	 */
	static BenchmarkReport run(Duration perRun, int rounds, String scenarioFilter)
			throws IOException, InterruptedException {
		BenchmarkReport report = new BenchmarkReport();
		List<Scenario> scenarios = Scenario.ALL.stream().filter((s) -> s.name().contains(scenarioFilter)).toList();
		if (scenarios.isEmpty()) {
			throw new IllegalArgumentException("No scenario's name contains '" + scenarioFilter + "' (bench.scenario)");
		}
		Duration warmUp = Duration.ofMillis(Math.min(500, perRun.toMillis()));
		try (RedisServer redis = RedisServer.start()) {
			List<Contender> contenders = Contenders.all(redis.port());
			List<ReactiveContender> reactiveContenders = ReactiveContenders.all(redis.port());
			try {
				ScenarioDriver driver = new ScenarioDriver(redis);
				MultiJvmDriver multiJvm = new MultiJvmDriver(redis);
				for (Scenario scenario : scenarios) {
					if (scenario.reactive()) {
						for (ReactiveContender contender : reactiveContenders) {
							driver.run(scenario, contender, warmUp);
						}
						for (int round = 0; round < rounds; round++) {
							for (ReactiveContender contender : reactiveContenders) {
								report.add(checked(driver.run(scenario, contender, perRun)));
							}
						}
						continue;
					}
					runRounds(report, scenario, contenders, driver, multiJvm, perRun, rounds);
				}
			}
			finally {
				contenders.forEach(Contender::close);
				reactiveContenders.forEach(ReactiveContender::close);
			}
		}
		return report;
	}

	/**
	 * Run a scenario of blocking threads with each contender that runs in it: a warm-up each
	 * (in one JVM; child JVMs warm themselves up before {@code GO}), then the rounds, interleaved.
	 */
	static void runRounds(BenchmarkReport report, Scenario scenario, List<Contender> contenders,
			ScenarioDriver driver, MultiJvmDriver multiJvm, Duration perRun, int rounds)
			throws IOException, InterruptedException {
		Duration warmUp = Duration.ofMillis(Math.min(500, perRun.toMillis()));
		List<Contender> running = contenders.stream().filter((c) -> Contenders.runsIn(c, scenario)).toList();
		if (scenario.jvms() == 1) {
			for (Contender contender : running) {
				driver.run(scenario, contender, warmUp);
			}
		}
		for (int round = 0; round < rounds; round++) {
			for (Contender contender : running) {
				report.add(checked((scenario.jvms() == 1) ? driver.run(scenario, contender, perRun)
						: multiJvm.run(scenario, contender.name(), perRun)));
			}
		}
	}

	private static ScenarioDriver.Result checked(ScenarioDriver.Result result) {
		if (!result.exclusive()) {
			throw new IllegalStateException(result.contender() + " let two holders in during '"
					+ result.scenario().name() + "': counter " + result.counter() + " after " + result.grants()
					+ " grants");
		}
		return result;
	}

}

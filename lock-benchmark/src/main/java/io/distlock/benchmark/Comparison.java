package io.distlock.benchmark;

import java.io.IOException;
import java.time.Duration;
import java.util.List;

import io.distlock.test.redis.RedisServer;

/**
 * The whole comparison: every scenario, every contender, in interleaved rounds (A B C D E, then
 * again), against one fresh {@code redis-server}, so that all contenders meet the same server
 * and machine state. Scenarios of several JVMs run each contender in child processes.
 */
final class Comparison {

	private Comparison() {
	}

	static BenchmarkReport run(Duration perRun, int rounds) throws IOException, InterruptedException {
		BenchmarkReport report = new BenchmarkReport();
		try (RedisServer redis = RedisServer.start()) {
			List<Contender> contenders = Contenders.all(redis.port());
			try {
				ScenarioDriver driver = new ScenarioDriver(redis);
				MultiJvmDriver multiJvm = new MultiJvmDriver(redis);
				for (Scenario scenario : Scenario.ALL) {
					if (scenario.jvms() == 1) {
						for (Contender contender : contenders) {
							// Warm-up, not reported. Child JVMs warm themselves up before GO.
							driver.run(scenario, contender, Duration.ofMillis(Math.min(500, perRun.toMillis())));
						}
					}
					for (int round = 0; round < rounds; round++) {
						for (Contender contender : contenders) {
							ScenarioDriver.Result result = (scenario.jvms() == 1) ? driver.run(scenario, contender, perRun)
									: multiJvm.run(scenario, contender.name(), perRun);
							if (!result.exclusive()) {
								throw new IllegalStateException(contender.name() + " let two holders in during '"
										+ scenario.name() + "': counter " + result.counter() + " after " + result.grants()
										+ " grants");
							}
							report.add(result);
						}
					}
				}
			}
			finally {
				contenders.forEach(Contender::close);
			}
		}
		return report;
	}

}

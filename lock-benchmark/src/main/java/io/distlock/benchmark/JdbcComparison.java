package io.distlock.benchmark;

import java.io.IOException;
import java.time.Duration;
import java.util.List;

/**
 * The PostgreSQL comparison: the scenarios of blocking threads on one key or distinct keys, one
 * JVM or two, with each {@link JdbcContenders JDBC contender}, in interleaved rounds against one
 * fresh embedded PostgreSQL 18, as {@link Comparison} runs the Redis contenders against one
 * {@code redis-server}.
 */
final class JdbcComparison {

	/** The scenarios it runs: one thread; 16 on distinct keys; 16 on a hot key; 2 JVMs × 8. */
	static final List<Scenario> SCENARIOS = Scenario.ALL.stream()
		.filter((s) -> !s.reactive() && (!s.hotKey() || !s.criticalSection().isZero()) && s.threads() <= 16)
		.toList();

	private JdbcComparison() {
	}

	/**
	 * Run the scenarios whose name contains the filter, all of them when it is empty.
	 */
	static BenchmarkReport run(Duration perRun, int rounds, String scenarioFilter)
			throws IOException, InterruptedException {
		BenchmarkReport report = BenchmarkReport.ofPostgres();
		List<Scenario> scenarios = SCENARIOS.stream().filter((s) -> s.name().contains(scenarioFilter)).toList();
		if (scenarios.isEmpty()) {
			throw new IllegalArgumentException("No scenario's name contains '" + scenarioFilter + "' (bench.scenario)");
		}
		try (PostgresServer postgres = PostgresServer.start()) {
			List<Contender> contenders = JdbcContenders.all(postgres.jdbcUrl());
			try {
				ScenarioDriver driver = new ScenarioDriver(postgres::resourceUse);
				MultiJvmDriver multiJvm = new MultiJvmDriver(postgres.jdbcUrl(), postgres::resourceUse);
				for (Scenario scenario : scenarios) {
					Comparison.runRounds(report, scenario, contenders, driver, multiJvm, perRun, rounds);
				}
			}
			finally {
				contenders.forEach(Contender::close);
			}
		}
		return report;
	}

}

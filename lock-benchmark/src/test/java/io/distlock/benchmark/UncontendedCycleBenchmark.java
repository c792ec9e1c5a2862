package io.distlock.benchmark;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs the JMH benchmark of the uncontended path, only with {@code -Pbench}; writes
 * {@code target/uncontended-cycle.md}. Not a test of speed: it fails only if JMH does not
 * produce both results.
 */
class UncontendedCycleBenchmark {

	@Test
	void measureALockAndUnlockCycleAgainstTheFloor() throws Exception {
		Options options = new OptionsBuilder().include(UncontendedCycle.class.getName())
			.forks(1)
			.warmupIterations(3)
			.warmupTime(TimeValue.seconds(1))
			.measurementIterations(5)
			.measurementTime(TimeValue.seconds(2))
			.build();
		Collection<RunResult> results = new Runner(options).run();
		Map<String, double[]> micros = new TreeMap<>();
		for (RunResult result : results) {
			micros.put(result.getParams().getParam("contender"), new double[] {
					result.getPrimaryResult().getScore(), result.getPrimaryResult().getScoreError() });
		}
		double[] distlock = micros.get("distlock");
		double[] floor = micros.get("floor");
		String table = String.format(Locale.ROOT, """
				**Uncontended lock and unlock** (JMH, 1 fork, 5 × 2 s, one thread, a fresh key per cycle)

				| contender | µs per cycle | ± (99.9 %%) | × the floor's time |
				| --- | --- | --- | --- |
				| distlock | %.1f | %.1f | %.2f |
				| floor (SET NX + Lua) | %.1f | %.1f | 1.00 |
				""", distlock[0], distlock[1], distlock[0] / floor[0], floor[0], floor[1]);
		Files.writeString(Path.of("target", "uncontended-cycle.md"), table);
		BenchmarkPage.publish("uncontended-cycle", table);
		System.out.println(table);
	}

}

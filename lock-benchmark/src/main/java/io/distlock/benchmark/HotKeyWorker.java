package io.distlock.benchmark;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.StringJoiner;

/**
 * The child JVM of a multi-JVM scenario: one contender, several threads on one hot key, counting
 * in a {@link SharedCounter}. Talks to {@link MultiJvmDriver} by lines: prints {@code READY}, runs
 * from {@code GO} to {@code STOP} on its input, then prints {@code GRANTS} (per thread) and
 * {@code LATENCIES} (nanoseconds of lock, section, unlock).
 */
public final class HotKeyWorker {

	private HotKeyWorker() {
	}

	/**
	 * Run the worker.
	 * @param args contender name, its server's address (a Redis port, or a JDBC URL for the
	 * {@link JdbcContenders}), key, the scenario's index in {@link Scenario#ALL}, counter file
	 */
	public static void main(String[] args) throws Exception {
		String name = args[0];
		String key = args[2];
		Scenario scenario = Scenario.ALL.get(Integer.parseInt(args[3]));
		BufferedReader input = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		try (Contender contender = JdbcContenders.NAMES.contains(name) ? JdbcContenders.named(name, args[1])
				: Contenders.named(name, Integer.parseInt(args[1]));
				SharedCounter counter = new SharedCounter(Path.of(args[4]))) {
			contender.locked(key + ":warm-up", () -> {
			});
			GrantLoops loops = new GrantLoops(scenario, contender, (thread, grant) -> key, () -> {
				int read = counter.read();
				CriticalSection.run(scenario.criticalSection());
				counter.write(read + 1);
			});
			System.out.println("READY");
			expect(input, "GO");
			loops.go();
			expect(input, "STOP");
			long[][] latencies;
			try {
				latencies = loops.stop();
			}
			catch (IllegalStateException ex) {
				ex.printStackTrace(System.out);
				System.exit(1);
				return;
			}
			StringJoiner grants = new StringJoiner(",", "GRANTS ", "");
			StringJoiner all = new StringJoiner(",", "LATENCIES ", "");
			for (long[] mine : latencies) {
				grants.add(Integer.toString(mine.length));
				for (long latency : mine) {
					all.add(Long.toString(latency));
				}
			}
			System.out.println(grants);
			System.out.println(all);
		}
		System.exit(0);
	}

	private static void expect(BufferedReader input, String command) throws Exception {
		String line = input.readLine();
		if (!command.equals(line)) {
			throw new IllegalStateException("Expected " + command + " but read " + line);
		}
	}

}

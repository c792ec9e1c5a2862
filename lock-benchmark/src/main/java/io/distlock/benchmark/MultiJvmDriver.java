package io.distlock.benchmark;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.distlock.test.redis.RedisServer;

/**
 * Runs a scenario of several JVMs: one {@link HotKeyWorker} process per JVM, each with the same
 * contender, all on one hot key and one {@link SharedCounter}. The window is the parent's: every
 * worker starts on {@code GO} and stops on {@code STOP}, and the server's commands (or
 * statements) are counted over the same window.
 */
final class MultiJvmDriver {

	private final String address;

	private final Supplier<ResourceUse> server;

	MultiJvmDriver(RedisServer redis) {
		this(Integer.toString(redis.port()), () -> ResourceUse.now(redis));
	}

	/**
	 * A driver whose workers reach their server at the given address.
	 * @param address what a worker's contender connects to: a Redis port, or a JDBC URL
	 * @param server reads what the server used so far
	 */
	MultiJvmDriver(String address, Supplier<ResourceUse> server) {
		this.address = address;
		this.server = server;
	}

	ScenarioDriver.Result run(Scenario scenario, String contender, Duration duration)
			throws IOException, InterruptedException {
		Path counterFile = Files.createTempFile("distlock-bench-counter", ".bin");
		String key = "bench:hot:" + UUID.randomUUID();
		List<Worker> workers = new ArrayList<>();
		try (SharedCounter counter = new SharedCounter(counterFile)) {
			for (int i = 0; i < scenario.jvms(); i++) {
				workers.add(new Worker(contender, this.address, key, scenario, counterFile));
			}
			for (Worker worker : workers) {
				worker.awaitLine("READY");
			}
			ResourceUse before = this.server.get();
			long start = System.nanoTime();
			workers.forEach((worker) -> worker.send("GO"));
			Thread.sleep(duration.toMillis());
			workers.forEach((worker) -> worker.send("STOP"));
			long elapsed = System.nanoTime() - start;
			List<long[]> latencies = new ArrayList<>();
			int firstJvmGrants = 0;
			for (Worker worker : workers) {
				String[] grants = worker.awaitLine("GRANTS").substring("GRANTS ".length()).split(",");
				long[] all = parse(worker.awaitLine("LATENCIES").substring("LATENCIES".length()).trim());
				int offset = 0;
				for (String threadGrants : grants) {
					int count = Integer.parseInt(threadGrants);
					latencies.add(Arrays.copyOfRange(all, offset, offset + count));
					offset += count;
				}
				if (worker == workers.get(0)) {
					firstJvmGrants = offset;
				}
				worker.awaitExit();
			}
			// The contender ran in the child processes: this process's CPU time says nothing of it.
			ResourceUse used = this.server.get().since(before).withoutProcessCpu();
			long[][] perThread = latencies.toArray(long[][]::new);
			int total = Arrays.stream(perThread).mapToInt((mine) -> mine.length).sum();
			return ScenarioDriver.Result.of(scenario, contender, perThread, elapsed, used, counter.read(),
					(total > 0) ? firstJvmGrants / (double) total : Double.NaN);
		}
		finally {
			workers.forEach(Worker::close);
			Files.deleteIfExists(counterFile);
		}
	}

	private static long[] parse(String csv) {
		return csv.isEmpty() ? new long[0] : Arrays.stream(csv.split(",")).mapToLong(Long::parseLong).toArray();
	}

	/** One child JVM and its line protocol. */
	private static final class Worker implements AutoCloseable {

		private final Process process;

		private final BufferedReader output;

		private final StringBuilder seen = new StringBuilder();

		Worker(String contender, String address, String key, Scenario scenario, Path counterFile) throws IOException {
			List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m",
					"-cp", System.getProperty("java.class.path"), HotKeyWorker.class.getName(), contender,
					address, key, Integer.toString(Scenario.ALL.indexOf(scenario)), counterFile.toString());
			this.process = new ProcessBuilder(command).redirectErrorStream(true).start();
			this.output = new BufferedReader(new InputStreamReader(this.process.getInputStream(), StandardCharsets.UTF_8));
		}

		String awaitLine(String prefix) throws IOException {
			for (String line = this.output.readLine(); line != null; line = this.output.readLine()) {
				if (line.startsWith(prefix)) {
					return line;
				}
				this.seen.append(line).append('\n');
			}
			throw new IllegalStateException("Benchmark worker ended without printing " + prefix + "; it printed:\n" + this.seen);
		}

		void send(String line) {
			try {
				OutputStream input = this.process.getOutputStream();
				input.write((line + "\n").getBytes(StandardCharsets.UTF_8));
				input.flush();
			}
			catch (IOException ex) {
				throw new IllegalStateException("Benchmark worker is gone; it printed:\n" + this.seen, ex);
			}
		}

		void awaitExit() throws InterruptedException {
			if (!this.process.waitFor(30, TimeUnit.SECONDS) || this.process.exitValue() != 0) {
				throw new IllegalStateException("Benchmark worker did not exit cleanly; it printed:\n" + this.seen);
			}
		}

		@Override
		public void close() {
			this.process.destroyForcibly();
		}

	}

}

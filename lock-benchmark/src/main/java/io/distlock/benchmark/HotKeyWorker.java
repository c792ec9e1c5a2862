package io.distlock.benchmark;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.StringJoiner;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

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
	 * @param args contender name, Redis port, key, threads, critical section in nanoseconds,
	 * counter file
	 */
	public static void main(String[] args) throws Exception {
		String name = args[0];
		int port = Integer.parseInt(args[1]);
		String key = args[2];
		int threadCount = Integer.parseInt(args[3]);
		Duration section = Duration.ofNanos(Long.parseLong(args[4]));
		BufferedReader input = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		try (Contender contender = Contenders.named(name, port); SharedCounter counter = new SharedCounter(Path.of(args[5]))) {
			contender.locked(key + ":warm-up", () -> {
			});
			AtomicBoolean running = new AtomicBoolean(true);
			AtomicReference<Throwable> failure = new AtomicReference<>();
			CountDownLatch start = new CountDownLatch(1);
			long[][] latencies = new long[threadCount][];
			List<Thread> threads = new ArrayList<>();
			for (int t = 0; t < threadCount; t++) {
				int index = t;
				Thread thread = new Thread(() -> {
					long[] mine = new long[1 << 14];
					int count = 0;
					try {
						start.await();
						while (running.get()) {
							long begin = System.nanoTime();
							contender.locked(key, () -> {
								int read = counter.read();
								CriticalSection.run(section);
								counter.write(read + 1);
							});
							if (count == mine.length) {
								mine = Arrays.copyOf(mine, mine.length * 2);
							}
							mine[count++] = System.nanoTime() - begin;
						}
					}
					catch (Throwable ex) {
						failure.compareAndSet(null, ex);
					}
					latencies[index] = Arrays.copyOf(mine, count);
				}, "worker-" + t);
				threads.add(thread);
				thread.start();
			}
			System.out.println("READY");
			expect(input, "GO");
			start.countDown();
			expect(input, "STOP");
			running.set(false);
			for (Thread thread : threads) {
				thread.join();
			}
			if (failure.get() != null) {
				failure.get().printStackTrace(System.out);
				System.exit(1);
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

package io.distlock.benchmark;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Threads that lock, run the section and unlock in a loop, from {@link #go()} to {@link #stop()},
 * each recording the latency of every grant.
 */
final class GrantLoops implements Loops {

	/** The key a thread locks for its next grant. */
	interface KeyChooser {

		String key(int thread, int grant);

	}

	private final AtomicBoolean running = new AtomicBoolean(true);

	private final AtomicReference<Throwable> failure = new AtomicReference<>();

	private final CountDownLatch start = new CountDownLatch(1);

	private final List<Thread> threads = new ArrayList<>();

	private final long[][] latencies;

	private final String label;

	/**
	 * Start the scenario's threads (those of one JVM); they wait for {@link #go()}.
	 */
	GrantLoops(Scenario scenario, Contender contender, KeyChooser keys, Runnable section) {
		this.label = contender.name() + " in '" + scenario.name() + "'";
		this.latencies = new long[scenario.threads()][];
		for (int t = 0; t < scenario.threads(); t++) {
			int index = t;
			Thread thread = new Thread(() -> {
				long[] mine = new long[1 << 14];
				int count = 0;
				try {
					this.start.await();
					while (this.running.get()) {
						String key = keys.key(index, count);
						long begin = System.nanoTime();
						contender.locked(key, section);
						if (count == mine.length) {
							mine = Arrays.copyOf(mine, mine.length * 2);
						}
						mine[count++] = System.nanoTime() - begin;
					}
				}
				catch (Throwable ex) {
					this.failure.compareAndSet(null, ex);
				}
				this.latencies[index] = Arrays.copyOf(mine, count);
			}, "bench-" + t);
			this.threads.add(thread);
			thread.start();
		}
	}

	@Override
	public void go() {
		this.start.countDown();
	}

	/**
	 * Stop the loops and wait for the threads.
	 * @return each thread's latencies in nanoseconds, one per grant
	 * @throws IllegalStateException if a thread failed
	 */
	@Override
	public long[][] stop() throws InterruptedException {
		this.running.set(false);
		for (Thread thread : this.threads) {
			thread.join(60_000);
		}
		if (this.failure.get() != null) {
			throw new IllegalStateException(this.label + " failed", this.failure.get());
		}
		return this.latencies;
	}

}

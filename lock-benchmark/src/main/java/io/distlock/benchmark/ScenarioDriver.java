package io.distlock.benchmark;

import java.time.Duration;
import java.util.Arrays;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

import reactor.core.publisher.Mono;

import io.distlock.test.redis.RedisServer;

/**
 * Runs one scenario with one contender for a while and measures it: grants per second, the
 * latency of lock-section-unlock, the server's commands per grant (from the server's own counter,
 * so Redis commands inside scripts count too; on PostgreSQL its statements), the CPU time the
 * server and the client spent per grant, and
 * fairness (most and fewest grants of any thread). A non-atomic counter checks exclusion on the
 * hot key. Blocking contenders run in threads ({@link GrantLoops}), reactive ones in subscribers
 * ({@link SubscriberLoops}).
 */
final class ScenarioDriver {

	private final Supplier<ResourceUse> server;

	ScenarioDriver(RedisServer redis) {
		this(() -> ResourceUse.now(redis));
	}

	/**
	 * A driver whose runs read the server's counters from the given source.
	 * @param server reads what the server (and this process) used so far
	 */
	ScenarioDriver(Supplier<ResourceUse> server) {
		this.server = server;
	}

	Result run(Scenario scenario, Contender contender, Duration duration) throws InterruptedException {
		String hotKey = "bench:hot:" + UUID.randomUUID();
		int[] counter = new int[1];
		GrantLoops loops = new GrantLoops(scenario, contender,
				(thread, grant) -> scenario.hotKey() ? hotKey : "bench:" + thread + ":" + grant, () -> {
					int read = counter[0];
					CriticalSection.run(scenario.criticalSection());
					counter[0] = read + 1;
				});
		return measure(scenario, contender.name(), loops, duration, () -> counter[0]);
	}

	/**
	 * Run the reactive scenario with a reactive contender: its subscribers on one hot key, each
	 * section a non-blocking {@code Mono.delay} of the scenario's section on Reactor's parallel
	 * scheduler, with the same non-atomic counter read before the delay and written after it.
	 */
	Result run(Scenario scenario, ReactiveContender contender, Duration duration) throws InterruptedException {
		String hotKey = "bench:hot:" + UUID.randomUUID();
		AtomicInteger counter = new AtomicInteger();
		SubscriberLoops loops = new SubscriberLoops(scenario, contender, hotKey, () -> Mono.defer(() -> {
			int read = counter.get();
			return Mono.delay(scenario.criticalSection()).doOnNext((tick) -> counter.set(read + 1)).then();
		}));
		return measure(scenario, contender.name(), loops, duration, counter::get);
	}

	/**
	 * Run the loops for the duration and read what they did: their latencies, the time taken
	 * (until each finished its last grant), the commands and CPU time Redis spent, the CPU time
	 * of this process, and the counter.
	 */
	private Result measure(Scenario scenario, String contender, Loops loops, Duration duration, IntSupplier counter)
			throws InterruptedException {
		ResourceUse before = this.server.get();
		long startNanos = System.nanoTime();
		loops.go();
		Thread.sleep(duration.toMillis());
		long[][] latencies = loops.stop();
		long elapsed = System.nanoTime() - startNanos;
		ResourceUse used = this.server.get().since(before);
		return Result.of(scenario, contender, latencies, elapsed, used, counter.getAsInt(), Double.NaN);
	}

	private static double percentile(long[] sorted, double percentile) {
		if (sorted.length == 0) {
			return 0;
		}
		return sorted[Math.min(sorted.length - 1, (int) (sorted.length * percentile))] / 1e3;
	}

	/**
	 * What one run measured.
	 *
	 * @param scenario the scenario
	 * @param contender the contender's name
	 * @param grants the grants
	 * @param perSecond grants per second
	 * @param p50Micros median latency of lock, section, unlock
	 * @param p99Micros 99th percentile
	 * @param p999Micros 99.9th percentile
	 * @param commandsPerGrant the server's commands per grant (Redis: those inside scripts
	 * included; PostgreSQL: statements)
	 * @param serverCpuMicrosPerGrant the server's CPU time per grant
	 * @param clientCpuMicrosPerGrant this process's CPU time per grant, {@code NaN} when the
	 * contender ran in other processes
	 * @param mostByOneThread the most grants of one thread (or subscriber)
	 * @param fewestByOneThread the fewest grants of one thread (or subscriber)
	 * @param counter the non-atomic counter after the run
	 * @param firstJvmShare the first JVM's share of the grants, {@code NaN} with one JVM
	 */
	record Result(Scenario scenario, String contender, int grants, double perSecond, double p50Micros,
			double p99Micros, double p999Micros, double commandsPerGrant, double serverCpuMicrosPerGrant,
			double clientCpuMicrosPerGrant, int mostByOneThread, int fewestByOneThread,
			int counter, double firstJvmShare) {

		/**
		 * Summarize a run.
		 * @param latencies each thread's latencies in nanoseconds, one per grant
		 * @param used what Redis and the contender's process used during the run (no process
		 * CPU time when the contender ran in other processes)
		 */
		static Result of(Scenario scenario, String contender, long[][] latencies, long elapsedNanos, ResourceUse used,
				int counter, double firstJvmShare) {
			long[] all = Arrays.stream(latencies).flatMapToLong(Arrays::stream).sorted().toArray();
			int total = all.length;
			int most = Arrays.stream(latencies).mapToInt((mine) -> mine.length).max().orElse(0);
			int fewest = Arrays.stream(latencies).mapToInt((mine) -> mine.length).min().orElse(0);
			double perGrant = (total > 0) ? 1.0 / total : Double.NaN;
			double clientCpuMicros = (used.processCpuNanos() >= 0) ? used.processCpuNanos() / 1e3 * perGrant
					: Double.NaN;
			return new Result(scenario, contender, total, total / (elapsedNanos / 1e9), percentile(all, 0.50),
					percentile(all, 0.99), percentile(all, 0.999), (total > 0) ? used.commands() * perGrant : 0,
					used.serverCpuSeconds() * 1e6 * perGrant, clientCpuMicros, most, fewest, counter, firstJvmShare);
		}

		/**
		 * Return whether the counter saw every grant (no overlap), which only a hot key tests.
		 * @return whether exclusion held
		 */
		boolean exclusive() {
			return !this.scenario.hotKey() || this.counter == this.grants;
		}

	}

}

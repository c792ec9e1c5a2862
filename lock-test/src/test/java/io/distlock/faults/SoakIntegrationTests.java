package io.distlock.faults;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import io.distlock.test.network.FaultProxy;
import io.distlock.test.process.ChildJvm;
import io.distlock.test.process.SoakWorkerMain;
import io.distlock.test.redis.RedisServer;
import io.distlock.test.report.FaultReport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * T38: a soak under a fault schedule. Three processes run a mixed workload (exclusive,
 * multi-key, fair, read/write, thread-free asynchronous holds, fixed leases) through a proxy
 * each, while a seeded schedule freezes Redis (SIGSTOP) for a short and for a long time, kills
 * and restarts it (SIGKILL; {@code appendfsync always}, as assumption A1 asks), black-holes one
 * process, and deletes held keys as an administrator would. {@link SoakHistory} then checks every
 * hold: exclusion of validity-bounded holds, growing tokens, every loss signalled; and the end
 * state: no lock key left in Redis and no local state in any process.
 * <p>
 * {@code -Psoak} runs it; {@code -Ddistlock.soak.duration=PT20M} sets its length (default 4
 * minutes), {@code -Ddistlock.soak.seed} replays a schedule.
 */
@Tag("soak")
class SoakIntegrationTests {

	private static final Duration LEASE = Duration.ofSeconds(1);

	private static final Duration LONG_OUTAGE = Duration.ofMillis(1_800);

	private static final Duration SHORT_OUTAGE = Duration.ofMillis(300);

	private static final List<String> DELETABLE = List.of("soak:x", "soak:m", "soak:f", "soak:a", "soak:l");

	private RedisServer redis;

	private Oracle oracle;

	private final List<FaultProxy> proxies = new ArrayList<>();

	private final List<ChildJvm> jvms = new ArrayList<>();

	private final List<String> pids = new ArrayList<>();

	@BeforeEach
	void start() {
		this.redis = RedisServer.start("--appendonly", "yes", "--appendfsync", "always");
		this.oracle = new Oracle();
	}

	@AfterEach
	void stop() {
		this.jvms.forEach(ChildJvm::close);
		this.proxies.forEach(FaultProxy::close);
		this.oracle.close();
		this.redis.close();
	}

	@Test
	void t38ThreeProcessesUnderAFaultScheduleKeepEveryPromise() throws Exception {
		Duration duration = Duration.parse(System.getProperty("distlock.soak.duration", "PT4M"));
		long seed = Long.getLong("distlock.soak.seed", System.nanoTime());
		System.out.println("T38 soak: " + duration + ", seed " + seed);
		String run = UUID.randomUUID().toString();
		startWorkers(run, seed, "locked");
		Schedule schedule = new Schedule(new Random(seed));
		long end = System.nanoTime() + duration.toNanos();
		while (System.nanoTime() - end < 0) {
			schedule.next();
		}
		Summary summary = stopWorkers();
		List<String> lines = this.oracle.redis().opsForList().range("soak-history:" + run, 0, -1);
		keepForDiagnosis(seed, lines, schedule.log);
		SoakHistory history = new SoakHistory(lines, schedule.outages, schedule.deletes, LEASE);
		List<String> overlaps = history.overlaps();
		List<String> decreases = history.tokenDecreases();
		List<String> unsignalled = history.unsignalledLosses();
		System.out.println("T38 soak: " + history.size() + " holds " + history.holdsByKey() + "; faults "
				+ schedule.counts + "; " + history.mustHaveLost() + " holds had to be lost, " + history.signalled()
				+ " were told of a loss, " + history.toldDownHandoffs() + " were told through the hold their grant was "
				+ "handed to, " + history.neverValid() + " were never valid after they began; " + summary);
		schedule.log.forEach((line) -> System.out.println("T38 fault " + line));
		history.explainOverlaps().forEach((line) -> System.out.println("T38 " + line));
		assertThat(summary.failures).as("worker threads that died").isZero();
		assertThat(summary.extraCallbacks).as("loss callbacks beyond the first per lease").isZero();
		assertThat(summary.local).as("local gates left in the processes").isZero();
		assertThat(summary.held).as("held leases left in the processes").isZero();
		assertThat(overlaps).as("holds that overlap while valid").isEmpty();
		assertThat(decreases).as("tokens that do not grow from one hold to the next").isEmpty();
		assertThat(unsignalled).as("losses the holder was not told of").isEmpty();
		assertThat(history.mustHaveLost()).as("holds the faults made lose (the schedule must bite)").isPositive();
		await().atMost(Duration.ofSeconds(10)).untilAsserted(
				() -> assertThat(lockKeysLeft()).as("lock keys left in Redis after the end").isEmpty());
		FaultReport.row("T38", "soak, " + duration.toMinutes() + " min, 3 JVMs x 6 threads (exclusive, multi, fair, "
				+ "read/write, async, fixed lease); " + schedule.counts + " (seed " + seed + ")",
				"no overlap of valid holds, tokens grow, every loss told, nothing left behind",
				history.size() + " holds, " + history.mustHaveLost() + " had to be lost, " + history.signalled()
						+ " told of a loss (" + history.toldDownHandoffs() + " through a local handoff); 0 overlaps, 0 token decreases, 0 untold losses; 0 keys, 0 local entries left");
	}

	@Test
	void t38NegativeControlWithoutTheLockTheCheckerFindsOverlaps() throws Exception {
		String run = UUID.randomUUID().toString();
		startWorkers(run, 38, "unlocked");
		TimeUnit.SECONDS.sleep(5);
		Summary summary = stopWorkers();
		SoakHistory history = new SoakHistory(this.oracle.redis().opsForList().range("soak-history:" + run, 0, -1),
				List.of(), List.of(), LEASE);
		assertThat(summary.failures).isZero();
		assertThat(history.overlaps()).as("overlapping holds without the lock").isNotEmpty();
		FaultReport.row("T38 control", "the soak's workload for 5 s with no lock", "the checker finds overlaps",
				history.overlaps().size() + " overlaps in " + history.size() + " holds");
	}

	private void startWorkers(String run, long seed, String mode) throws Exception {
		for (int i = 0; i < 3; i++) {
			FaultProxy proxy = FaultProxy.start(this.redis.host(), this.redis.port());
			this.proxies.add(proxy);
			ChildJvm jvm = ChildJvm.start(SoakWorkerMain.class, Integer.toString(proxy.port()),
					Integer.toString(this.oracle.port()), run, Long.toString(seed + i), mode);
			this.jvms.add(jvm);
		}
		for (ChildJvm jvm : this.jvms) {
			this.pids.add(jvm.awaitLine("READY", 60, TimeUnit.SECONDS).substring("READY pid=".length()));
		}
	}

	private Summary stopWorkers() throws Exception {
		Summary summary = new Summary();
		for (ChildJvm jvm : this.jvms) {
			jvm.send("STOP");
		}
		for (ChildJvm jvm : this.jvms) {
			String done = jvm.awaitLine("DONE", 90, TimeUnit.SECONDS);
			Map<String, Integer> fields = new TreeMap<>();
			for (String field : done.substring("DONE ".length()).split(" ")) {
				String[] pair = field.split("=");
				fields.put(pair[0], Integer.parseInt(pair[1]));
			}
			summary.failures += fields.get("failures");
			summary.holds += fields.get("holds");
			summary.refused += fields.get("refused");
			summary.local += fields.get("local");
			summary.held += fields.get("held");
			summary.extraCallbacks += fields.get("callbacks");
			if (fields.get("failures") > 0) {
				System.out.println(jvm.output());
			}
		}
		return summary;
	}

	/**
	 * Write the run's history and schedule to {@code target/soak-<seed>.txt}, so that a failure
	 * can be read hold by hold after the run.
	 */
	private static void keepForDiagnosis(long seed, List<String> holds, List<String> faults) throws IOException {
		List<String> lines = new ArrayList<>();
		faults.forEach((fault) -> lines.add("fault " + fault));
		lines.addAll(holds);
		Path file = Path.of("target", "soak-" + seed + ".txt");
		Files.createDirectories(file.getParent());
		Files.write(file, lines);
		System.out.println("T38 soak: history and schedule in " + file.toAbsolutePath());
	}

	private Set<String> lockKeysLeft() {
		Set<String> keys = new TreeSet<>(this.redis.template().keys("distlock:*"));
		keys.removeIf((key) -> key.endsWith(":fence"));
		return keys;
	}

	private static final class Summary {

		int failures;

		int holds;

		int refused;

		int local;

		int held;

		int extraCallbacks;

		@Override
		public String toString() {
			return "processes: " + this.holds + " holds logged, " + this.refused + " acquisitions refused, "
					+ this.local + " local entries and " + this.held + " leases left, " + this.extraCallbacks
					+ " repeated callbacks";
		}

	}

	/**
	 * The seeded fault schedule: one fault, then a quiet time, again and again. Every fault is
	 * healed before {@link #next()} returns.
	 */
	private final class Schedule {

		private final Random random;

		final List<SoakHistory.Outage> outages = new ArrayList<>();

		final List<SoakHistory.Delete> deletes = new ArrayList<>();

		final Map<String, Integer> counts = new TreeMap<>();

		final List<String> log = new ArrayList<>();

		Schedule(Random random) {
			this.random = random;
		}

		void next() throws Exception {
			switch (this.random.nextInt(6)) {
				case 0 -> pause(LONG_OUTAGE);
				case 1 -> pause(SHORT_OUTAGE);
				case 2 -> restart();
				case 3 -> blackHole();
				default -> delete();
			}
			quiet(Duration.ofMillis(1_000 + this.random.nextInt(2_000)));
		}

		private void pause(Duration length) throws InterruptedException {
			SoakIntegrationTests.this.redis.pause();
			long from = System.nanoTime();
			quiet(length);
			long to = System.nanoTime();
			SoakIntegrationTests.this.redis.resume();
			outage("Redis frozen " + length.toMillis() + " ms", from, to, null);
		}

		private void restart() throws InterruptedException {
			SoakIntegrationTests.this.redis.kill();
			long from = System.nanoTime();
			quiet(LONG_OUTAGE);
			long to = System.nanoTime();
			SoakIntegrationTests.this.redis.restart();
			outage("Redis killed and restarted after " + LONG_OUTAGE.toMillis() + " ms", from, to, null);
		}

		private void blackHole() throws InterruptedException {
			int index = this.random.nextInt(SoakIntegrationTests.this.proxies.size());
			FaultProxy proxy = SoakIntegrationTests.this.proxies.get(index);
			proxy.mode(FaultProxy.Mode.BLACKHOLE);
			long from = System.nanoTime();
			quiet(LONG_OUTAGE);
			long to = System.nanoTime();
			proxy.mode(FaultProxy.Mode.PASS);
			outage("process " + index + " black-holed " + LONG_OUTAGE.toMillis() + " ms", from, to,
					SoakIntegrationTests.this.pids.get(index));
		}

		private void delete() {
			String key = DELETABLE.get(this.random.nextInt(DELETABLE.size()));
			// Wait (boundedly) for the key to be held, so that most deletes hit a holder.
			try {
				await().atMost(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(1))
					.until(() -> SoakIntegrationTests.this.redis.template().hasKey("distlock:{" + key + "}"));
			}
			catch (ConditionTimeoutException ex) {
				// Nobody took it for 2 s: delete a free key, which must change nothing.
			}
			long sent = System.nanoTime();
			boolean deleted = Boolean.TRUE.equals(SoakIntegrationTests.this.redis.template().delete("distlock:{" + key + "}"));
			long answered = System.nanoTime();
			this.deletes.add(new SoakHistory.Delete(key, sent, answered, deleted));
			count("DEL " + (deleted ? "of a held key" : "of a free key"));
			this.log.add(sent + " DEL " + key + (deleted ? " (held)" : " (free)"));
		}

		private void outage(String what, long from, long to, String process) {
			this.outages.add(new SoakHistory.Outage(what, from, to, process));
			count(what.replaceAll("process \\d", "a process"));
			this.log.add(from + ".." + to + " " + what);
		}

		private void count(String what) {
			this.counts.merge(what, 1, Integer::sum);
		}

		private static void quiet(Duration duration) throws InterruptedException {
			TimeUnit.MILLISECONDS.sleep(duration.toMillis());
		}

	}

}

package io.distlock.faults;


import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.distlock.core.DistLock;
import io.distlock.detector.Workers;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.test.process.ChildJvm;
import io.distlock.test.process.WitnessWorkerMain;
import io.distlock.test.redis.RedisServerExtension;
import io.distlock.test.report.FaultReport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * T01 and T02 of the reliability catalogue: exclusion under contention, seen by a witness on a
 * Redis that is never faulted, with its negative control.
 */
@Tag("fault")
@Timeout(300)
class ExclusionFaultIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	static final Oracle oracle = new Oracle();

	@Test
	void t01ThreeJvmsOfFourThreadsNeverOverlap() throws Exception {
		Run run = runThreeJvms("locked", 125);
		assertThat(run.violations).as("witness violations").isZero();
		assertThat(run.counter).isEqualTo(3 * 4 * 125);
		assertThat(oracle.redis().hasKey("witness:" + run.key)).as("witness empty at the end").isFalse();
		FaultReport.row("T01", "none: 3 JVMs x 4 threads, one key", "exclusion holds",
				"1,500 grants: 0 witness violations, counter exact");
	}

	@Test
	void t01NegativeControlWithoutTheLockTheWitnessFires() throws Exception {
		Run run = runThreeJvms("unlocked", 25);
		assertThat(run.violations).as("witness violations without the lock").isPositive();
		FaultReport.row("T01 control", "no lock", "the witness fires",
				run.violations + " violations in 300 unlocked sections");
	}

	@Test
	void t34TheHistoryOfThreeJvmsIsAValidityBoundedMutex() throws Exception {
		Run run = runThreeJvms("locked", 125);
		MutexHistory history = MutexHistory.load(oracle.redis(), run.key);
		assertThat(history.size()).isEqualTo(1_500);
		assertThat(history.overlaps()).as("holds that overlap while valid").isEmpty();
		assertThat(history.tokenDecreases()).as("tokens that do not grow from one hold to the next").isEmpty();
		FaultReport.row("T34", "none: 3 JVMs x 4 threads, one key; every hold recorded with its validity",
				"the history is a mutex of validity-bounded holds, tokens growing",
				history.size() + " holds: 0 overlaps, 0 token decreases");
	}

	@Test
	void t34NegativeControlWithoutTheLockTheCheckerFindsOverlaps() throws Exception {
		Run run = runThreeJvms("unlocked", 25);
		MutexHistory history = MutexHistory.load(oracle.redis(), run.key);
		assertThat(history.overlaps()).as("overlapping holds without the lock").isNotEmpty();
		FaultReport.row("T34 control", "no lock", "the checker finds overlaps",
				history.overlaps().size() + " overlaps in " + history.size() + " sections");
	}

	@Test
	void t02ManyKeysLeaveNoStateAndNoChannels() throws Exception {
		RedisLockRegistry registry = new RedisLockRegistry(redis.server().connectionFactory());
		List<String> keys = new ArrayList<>();
		for (int i = 0; i < 50; i++) {
			keys.add("many:" + UUID.randomUUID());
		}
		Map<String, Thread> inside = new ConcurrentHashMap<>();
		AtomicInteger violations = new AtomicInteger();
		AtomicInteger operations = new AtomicInteger();
		Workers.runAll(Executors.newFixedThreadPool(16), 16, (worker) -> {
			for (int i = 0; i < 1_250; i++) {
				String key = keys.get(ThreadLocalRandom.current().nextInt(keys.size()));
				DistLock lock = registry.obtain(key);
				lock.lock();
				try {
					if (inside.putIfAbsent(key, Thread.currentThread()) != null) {
						violations.incrementAndGet();
					}
					Thread.sleep(ThreadLocalRandom.current().nextInt(0, 3));
					inside.remove(key, Thread.currentThread());
				}
				finally {
					lock.unlock();
				}
				operations.incrementAndGet();
			}
		});
		assertThat(violations).hasValue(0);
		assertThat(operations).hasValue(20_000);
		assertThat(registry.localKeyCount()).isZero();
		registry.close();
		assertThat(redis.server().command("PUBSUB", "CHANNELS")).isEqualTo("*0");
		for (String key : keys) {
			assertThat(redis.server().template().hasKey("distlock:{" + key + "}")).isFalse();
		}
		FaultReport.row("T02", "none: 16 threads, 50 keys, 20,000 operations", "no leftovers",
				"0 violations; 0 local entries, 0 lock keys and 0 channels after close");
	}

	private Run runThreeJvms(String mode, int grantsPerThread) throws Exception {
		String key = "t01:" + UUID.randomUUID();
		oracle.redis().opsForValue().set("counter:" + key, "0");
		List<ChildJvm> jvms = new ArrayList<>();
		try {
			for (int i = 0; i < 3; i++) {
				jvms.add(ChildJvm.start(WitnessWorkerMain.class, Integer.toString(redis.server().port()),
						Integer.toString(oracle.port()), key, "4", Integer.toString(grantsPerThread), mode));
			}
			for (ChildJvm jvm : jvms) {
				assertThat(jvm.awaitLine("DONE", 240, TimeUnit.SECONDS)).as(jvm::output).isEqualTo("DONE failures=0");
			}
		}
		finally {
			jvms.forEach(ChildJvm::close);
		}
		return new Run(key, oracle.violations(key),
				Integer.parseInt(oracle.redis().opsForValue().get("counter:" + key)));
	}

	private record Run(String key, long violations, int counter) {
	}


}

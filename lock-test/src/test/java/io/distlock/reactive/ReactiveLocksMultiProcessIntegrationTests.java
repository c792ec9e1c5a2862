package io.distlock.reactive;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.distlock.test.process.ChildJvm;
import io.distlock.test.process.ReactiveCounterWorkerMain;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ReactiveLocks} across two JVMs on one Redis: each process runs many holds on one key at
 * once, whose bodies increment a non-atomic counter in Redis across a non-blocking gap (read,
 * {@code Mono.delay(1 ms)}, write). Under the lock the counter ends exact; the same processes
 * without the lock lose updates, the negative control that shows the detector sees overlap.
 */
@Timeout(120)
class ReactiveLocksMultiProcessIntegrationTests {

	/** Holds per process; eight of them in flight at once in each. */
	private static final int HOLDS = 100;

	private static final int IN_FLIGHT = 8;

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@Test
	void monoHoldsKeepTheCounterExactAcrossTwoJvms() throws Exception {
		assertThat(runCounter("mono", "locked")).isEqualTo(2 * HOLDS);
	}

	@Test
	void negativeControlMonoBodiesWithoutTheLockAcrossTwoJvmsLoseUpdates() throws Exception {
		assertThat(runCounter("mono", "unlocked")).isLessThan(2 * HOLDS);
	}

	@Test
	void fluxHoldsKeepTheCounterExactAcrossTwoJvms() throws Exception {
		assertThat(runCounter("flux", "locked")).isEqualTo(2 * HOLDS * 3);
	}

	@Test
	void negativeControlFluxBodiesWithoutTheLockAcrossTwoJvmsLoseUpdates() throws Exception {
		assertThat(runCounter("flux", "unlocked")).isLessThan(2 * HOLDS * 3);
	}

	/**
	 * Run the workload in two child JVMs started together and return the counter's final value.
	 */
	private int runCounter(String body, String mode) throws Exception {
		String lockKey = "reactive-jvms:" + UUID.randomUUID();
		String counterKey = "counter:" + UUID.randomUUID();
		redis.server().template().opsForValue().set(counterKey, "0");
		String[] arguments = { Integer.toString(redis.server().port()), lockKey, counterKey, Integer.toString(HOLDS),
				Integer.toString(IN_FLIGHT), body, mode };
		long start = System.nanoTime();
		try (ChildJvm first = ChildJvm.start(ReactiveCounterWorkerMain.class, arguments);
				ChildJvm second = ChildJvm.start(ReactiveCounterWorkerMain.class, arguments)) {
			first.awaitLine("READY", 30, TimeUnit.SECONDS);
			second.awaitLine("READY", 30, TimeUnit.SECONDS);
			first.send("GO");
			second.send("GO");
			assertThat(first.awaitLine("DONE", 90, TimeUnit.SECONDS)).as(first::output).isEqualTo("DONE failures=0");
			assertThat(second.awaitLine("DONE", 90, TimeUnit.SECONDS)).as(second::output).isEqualTo("DONE failures=0");
		}
		int value = Integer.parseInt(redis.server().template().opsForValue().get(counterKey));
		List<String> holders = redis.server().template().opsForList().range(counterKey + ":holders", 0, -1);
		System.out.printf("Reactive %s %s across two JVMs: counter %d of %d increments, %d switches between the "
				+ "JVMs, %d ms%n", body, mode, value, holders.size(), switches(holders),
				TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
		return value;
	}

	private static int switches(List<String> holders) {
		int switches = 0;
		for (int i = 1; i < holders.size(); i++) {
			if (!holders.get(i).equals(holders.get(i - 1))) {
				switches++;
			}
		}
		return switches;
	}

}

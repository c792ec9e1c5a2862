package io.distlock.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.distlock.core.LockAcquisitionException;
import io.distlock.core.LockLease;
import io.distlock.detector.LeaseDeadline;
import io.distlock.engine.RegistrySettings;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.test.process.ChildJvm;
import io.distlock.test.process.FencedHolderMain;
import io.distlock.test.redis.RedisServerExtension;
import io.distlock.test.report.FaultReport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * T14 and T15: a holder paused longer than its lease (Kleppmann's GC pause) is overtaken, and
 * only the fencing token keeps its late write out; a frozen Redis makes the holder lost at its
 * deadline, and afterwards one waiter at a time gets the lock.
 */
@Tag("fault")
@Timeout(600)
class PauseFaultIntegrationTests {

	private static final Duration LEASE_T15 = Duration.ofSeconds(2);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	static final Oracle oracle = new Oracle();

	@Test
	void t14APausedHoldersLateWriteIsRejectedByTheFence() throws Exception {
		int runs = 5;
		List<Long> takeovers = new ArrayList<>();
		for (int run = 0; run < runs; run++) {
			Pause pause = pauseHolder("FENCED");
			assertThat(pause.staleWrite).isEqualTo("FENCED rejected");
			assertThat(oracle.value(pause.key)).as("the resource keeps the successor's write").isEqualTo("b");
			assertThat(pause.holderToldLost).isTrue();
			assertThat(pause.believedOverlap).as("the paused holder believed it held during the successor's hold")
				.isTrue();
			assertThat(pause.validOverlaps).as("overlaps of validity-bounded holds").isZero();
			takeovers.add(pause.takeoverMillis);
		}
		assertThat(takeovers).allSatisfy((millis) -> assertThat(millis).isLessThanOrEqualTo(2_000 + 250));
		FaultReport.row("T14", "holder JVM paused (SIGSTOP) 4 s with a 2 s lease, then writes",
				"a successor acquires; the holder is told LOST on resuming; its fenced write is rejected",
				runs + "/" + runs + " rejected; successor acquired " + takeovers.stream().mapToLong(Long::longValue).min().orElse(0)
						+ " to " + takeovers.stream().mapToLong(Long::longValue).max().orElse(0) + " ms after the pause");
		FaultReport.row("T34 under T14", "the same pauses, both holds recorded with their validity",
				"the believed holds overlap, the validity-bounded ones do not",
				runs + "/" + runs + " believed overlaps; 0 validity-bounded overlaps");
	}

	@Test
	void t14NegativeControlWithoutTheFenceTheStaleWriteWins() throws Exception {
		int runs = 3;
		for (int run = 0; run < runs; run++) {
			Pause pause = pauseHolder("PLAIN");
			assertThat(pause.staleWrite).isEqualTo("PLAIN done");
			assertThat(oracle.value(pause.key)).as("the stale write overwrote the successor's").isEqualTo("a");
		}
		FaultReport.row("T14 control", "the same pause, write without the token", "the stale write wins (lost update)",
				runs + "/" + runs + " lost updates");
	}

	@Test
	void t15AFrozenRedisMakesTheHolderLostAndThenOneWaiterAtATimeAcquires() throws Exception {
		LettuceConnectionFactory factory = redis.server().newConnectionFactory(Duration.ofMillis(500));
		String key = "t15:" + UUID.randomUUID();
		AtomicInteger violations = new AtomicInteger();
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger storeErrors = new AtomicInteger();
		List<RedisLockRegistry> registries = new ArrayList<>();
		ExecutorService executor = Executors.newFixedThreadPool(4);
		try {
			RedisLockRegistry holder = RedisLockRegistry.builder(factory).leaseTime(LEASE_T15).build();
			registries.add(holder);
			LockLease lease = holder.acquire(key, Duration.ZERO);
			CompletableFuture<Long> lostAt = new CompletableFuture<>();
			lease.onLost((ex) -> lostAt.complete(System.nanoTime()));
			List<Future<?>> waiters = new ArrayList<>();
			for (int i = 0; i < 4; i++) {
				RedisLockRegistry waiter = RedisLockRegistry.builder(factory).build();
				registries.add(waiter);
				waiters.add(executor.submit(() -> {
					while (true) {
						LockLease mine;
						try {
							mine = waiter.acquire(key, Duration.ofSeconds(30));
						}
						catch (LockAcquisitionException ex) {
							// An unreachable store fails fast, by design: the application retries.
							storeErrors.incrementAndGet();
							Thread.sleep(100);
							continue;
						}
						try (mine) {
							if (inside.incrementAndGet() != 1) {
								violations.incrementAndGet();
							}
							Thread.sleep(50);
							inside.decrementAndGet();
						}
						return null;
					}
				}));
			}
			Thread.sleep(300);
			long pausedAt = System.nanoTime();
			redis.server().pause();
			long frozenAt = System.nanoTime();
			// A renewal reply already on its way is processed by now; no later one can come.
			Thread.sleep(100);
			long deadline = LeaseDeadline.of(lease);
			long told = lostAt.get(5, TimeUnit.SECONDS);
			long detected = TimeUnit.NANOSECONDS.toMillis(told - pausedAt);
			Thread.sleep(Math.max(0, 3_000 - detected));
			redis.server().resume();
			for (Future<?> waiter : waiters) {
				waiter.get(60, TimeUnit.SECONDS);
			}
			// The last renewal the frozen server applied was sent before the freeze, so the deadline
			// is at most the freeze + L - drift: exact, whatever the machine's load.
			assertThat(deadline).as("deadline no later than the freeze + L - drift")
				.isLessThanOrEqualTo(frozenAt + LEASE_T15.minus(RegistrySettings.driftMargin(LEASE_T15)).toNanos()
						+ LeaseDeadline.PRECISION_NANOS);
			// The callback runs on the watchdog's thread when the deadline passes; 250 ms is room for
			// that thread's schedule on a busy 2-core machine, not part of the promise.
			assertThat(TimeUnit.NANOSECONDS.toMillis(told - deadline)).as("callback after the deadline")
				.isLessThanOrEqualTo(250);
			assertThat(violations).hasValue(0);
			FaultReport.row("T15", "Redis frozen (SIGSTOP) 3 s under a 2 s lease, 4 waiters",
					"the holder is told LOST at its deadline; afterwards one waiter at a time acquires",
					"deadline " + TimeUnit.NANOSECONDS.toMillis(deadline - frozenAt) + " ms after the freeze (asserted: at most L - drift), LOST "
							+ TimeUnit.NANOSECONDS.toMillis(told - deadline) + " ms after it; 4/4 waiters served, 0 overlaps; " + storeErrors.get()
							+ " fast store errors to waiters during the freeze");
		}
		finally {
			if (redis.server().isPaused()) {
				redis.server().resume();
			}
			executor.shutdownNow();
			registries.forEach(RedisLockRegistry::close);
			factory.destroy();
		}
	}

	/**
	 * A child JVM acquires (lease 2 s), is frozen 4 s, a successor acquires and writes "b" with
	 * its token, then the child resumes and writes "a" with {@code mode} (FENCED or PLAIN).
	 */
	private Pause pauseHolder(String mode) throws Exception {
		String key = "t14:" + UUID.randomUUID();
		try (ChildJvm holder = ChildJvm.start(FencedHolderMain.class, Integer.toString(redis.server().port()),
				Integer.toString(oracle.port()), key, "2000");
				RedisLockRegistry successor = new RedisLockRegistry(redis.server().connectionFactory())) {
			String[] acquired = holder.awaitLine("ACQUIRED", 30, TimeUnit.SECONDS).split(" ");
			Thread.sleep(500);
			holder.pause();
			long pausedAt = System.nanoTime();
			long takeover;
			try (LockLease lease = successor.acquire(key, Duration.ofSeconds(10))) {
				long successorStart = System.nanoTime();
				long successorValidUntil = successorStart + lease.remaining().toNanos();
				takeover = TimeUnit.NANOSECONDS.toMillis(successorStart - pausedAt);
				assertThat(oracle.fencedWrite(key, lease.fencingToken(), "b")).isTrue();
				Thread.sleep(Math.max(0, 4_000 - takeover));
				holder.resume();
				String lost = holder.awaitLine("LOST", 5, TimeUnit.SECONDS);
				holder.send(mode + " a");
				String write = holder.awaitLine(mode, 10, TimeUnit.SECONDS);
				long holderEnd = System.nanoTime();
				// T34: the paused holder believed it held until its write; its lease said otherwise.
				MutexHistory history = MutexHistory.of(List.of(
						new MutexHistory.Hold(Long.parseLong(acquired[2]), holderEnd, Long.parseLong(acquired[3]),
								Long.parseLong(acquired[1]), "paused holder"),
						new MutexHistory.Hold(successorStart, System.nanoTime(), successorValidUntil,
								lease.fencingToken(), "successor")));
				return new Pause(key, write, lost != null, takeover, holderEnd - successorStart > 0,
						history.overlaps().size());
			}
		}
	}

	/**
	 * What one pause showed; {@code believedOverlap} whether the paused holder still believed it
	 * held when the successor had the lock, {@code validOverlaps} the overlaps of
	 * validity-bounded holds (T34).
	 */
	private record Pause(String key, String staleWrite, boolean holderToldLost, long takeoverMillis,
			boolean believedOverlap, int validOverlaps) {
	}

}

package io.distlock.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.distlock.core.LockLease;
import io.distlock.core.LockRequest;
import io.distlock.redlock.RedlockRegistry;
import io.distlock.test.redis.RedisServer;
import io.distlock.test.report.FaultReport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * T26: Redlock split votes under contention. Five nodes, two registries (two clients) of four
 * threads each, all released at once on one key, round after round. A round where every thread
 * tries once can end with no winner (each took some nodes, none a quorum): the rate is reported.
 * With a wait time, the jittered retries break the tie and every thread gets its turn. A witness
 * sees no overlap in either, and no lock key is left on any node afterwards.
 */
@Tag("fault")
@Timeout(300)
class RedlockContentionFaultIntegrationTests {

	private static final int THREADS_PER_CLIENT = 4;

	private static final int ROUNDS = 150;

	private static final List<RedisServer> nodes = new ArrayList<>();

	private static final List<LettuceConnectionFactory> factories = new ArrayList<>();

	@BeforeAll
	static void startFiveNodes() {
		for (int i = 0; i < 5; i++) {
			RedisServer node = RedisServer.start();
			nodes.add(node);
			factories.add(node.newConnectionFactory(Duration.ofSeconds(2)));
		}
	}

	@AfterAll
	static void stopNodes() {
		factories.forEach(LettuceConnectionFactory::destroy);
		nodes.forEach(RedisServer::close);
	}

	@Test
	void t26SplitVotesNeverBreakExclusionAndLeaveNoKeys() throws Exception {
		String key = "t26:" + UUID.randomUUID();
		try (RedlockRegistry first = registry(); RedlockRegistry second = registry()) {
			Contention once = contend(first, second, key, Duration.ZERO, true);
			Contention waiting = contend(first, second, key, Duration.ofSeconds(10), true);
			assertThat(once.violations).as("witness violations, one try each").hasValue(0);
			assertThat(waiting.violations).as("witness violations, with a wait time").hasValue(0);
			assertThat(waiting.grants.get()).as("every thread served in every round")
				.isEqualTo(ROUNDS * 2 * THREADS_PER_CLIENT);
			assertThat(keysLeft(key)).as("lock keys left on the five nodes").isZero();
			double noWinner = 100.0 * once.roundsWithoutWinner.get() / ROUNDS;
			FaultReport.row("T26", "Redlock N = 5, 2 clients x 4 threads released at once on one key, " + ROUNDS
					+ " rounds", "split votes cost a round, never exclusion; retries with jitter resolve them",
					String.format(Locale.ROOT, "one try each: no winner in %.1f%% of rounds (%d grants in %d rounds);"
							+ " with a wait time: %d/%d grants; witness 0 violations; 0 lock keys left on 5 nodes", noWinner,
							once.grants.get(), ROUNDS, waiting.grants.get(), ROUNDS * 2 * THREADS_PER_CLIENT));
		}
	}

	@Test
	void t26NegativeControlWithoutTheLockTheWitnessFires() throws Exception {
		try (RedlockRegistry first = registry(); RedlockRegistry second = registry()) {
			Contention unlocked = contend(first, second, "t26-control:" + UUID.randomUUID(), Duration.ZERO, false);
			assertThat(unlocked.violations.get()).as("witness violations without the lock").isPositive();
		}
	}

	private static RedlockRegistry registry() {
		return RedlockRegistry.builder(factories).leaseTime(Duration.ofSeconds(5)).build();
	}

	private static Contention contend(RedlockRegistry first, RedlockRegistry second, String key, Duration waitTime,
			boolean locked) throws Exception {
		Contention contention = new Contention();
		int threads = 2 * THREADS_PER_CLIENT;
		AtomicInteger roundGrants = new AtomicInteger();
		CyclicBarrier barrier = new CyclicBarrier(threads, () -> {
			if (roundGrants.getAndSet(0) == 0 && contention.started.getAndIncrement() > 0) {
				contention.roundsWithoutWinner.incrementAndGet();
			}
		});
		ExecutorService executor = Executors.newFixedThreadPool(threads);
		try {
			List<Future<?>> workers = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				RedlockRegistry registry = (t % 2 == 0) ? first : second;
				String me = "thread-" + t;
				workers.add(executor.submit(() -> {
					for (int round = 0; round <= ROUNDS; round++) {
						barrier.await(60, TimeUnit.SECONDS);
						if (round == ROUNDS) {
							break;
						}
						Optional<LockLease> lease = locked
								? registry.tryAcquire(LockRequest.of(key).waitTime(waitTime)) : Optional.empty();
						if (locked && lease.isEmpty()) {
							continue;
						}
						roundGrants.incrementAndGet();
						contention.grants.incrementAndGet();
						if (!contention.witness.compareAndSet(null, me)) {
							contention.violations.incrementAndGet();
						}
						Thread.sleep(1);
						contention.witness.compareAndSet(me, null);
						if (lease.isPresent()) {
							lease.get().release();
						}
					}
					return null;
				}));
			}
			for (Future<?> worker : workers) {
				worker.get(240, TimeUnit.SECONDS);
			}
		}
		finally {
			executor.shutdownNow();
		}
		return contention;
	}

	private static int keysLeft(String key) {
		int left = 0;
		for (RedisServer node : nodes) {
			if (Boolean.TRUE.equals(node.template().hasKey("distlock:{" + key + "}"))) {
				left++;
			}
		}
		return left;
	}

	private static final class Contention {

		final AtomicInteger grants = new AtomicInteger();

		final AtomicInteger violations = new AtomicInteger();

		final AtomicInteger roundsWithoutWinner = new AtomicInteger();

		final AtomicInteger started = new AtomicInteger();

		final AtomicReference<String> witness = new AtomicReference<>();

	}

}

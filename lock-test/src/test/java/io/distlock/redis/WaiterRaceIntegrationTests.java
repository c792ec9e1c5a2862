package io.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.distlock.core.DistLock;
import io.distlock.core.WaitStrategy;
import io.distlock.test.redis.RedisServerExtension;
import io.distlock.test.registry.LockRegistries;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two waiters are woken by one release (or retry after it, when polling) and race for the lock:
 * one wins, and the other keeps waiting for the rest of its wait time. A wake-up that finds the
 * lock taken again is not an answer; a waiter that returned {@code false} then would give up
 * before its time.
 */
@Timeout(60)
class WaiterRaceIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private static final Duration WAIT = Duration.ofSeconds(3);

	@RegisterExtension
	final LockRegistries registries = LockRegistries.on(redis);

	@ParameterizedTest(name = "fair={0}, waiters in one process={1}, {2}")
	@CsvSource({ "false, false, PUB_SUB", "true, false, PUB_SUB", "false, true, PUB_SUB", "true, true, PUB_SUB",
			"false, false, POLLING", "true, false, POLLING" })
	void theWaiterThatLosesTheRaceAfterAReleaseWaitsOutItsWaitTime(boolean fair, boolean oneProcess,
			WaitStrategy waitStrategy) throws Exception {
		RedisLockRegistry holderRegistry = register(waitStrategy);
		RedisLockRegistry firstRegistry = register(waitStrategy);
		RedisLockRegistry secondRegistry = oneProcess ? firstRegistry : register(waitStrategy);
		String key = "race:" + UUID.randomUUID();
		DistLock holder = obtain(holderRegistry, key, fair);
		holder.lock();
		long scriptsBefore = redis.server().scriptCalls();
		CountDownLatch releaseWinner = new CountDownLatch(1);
		CompletableFuture<Attempt> first = waitFor(obtain(firstRegistry, key, fair), releaseWinner);
		CompletableFuture<Attempt> second = waitFor(obtain(secondRegistry, key, fair), releaseWinner);
		// The waiters are waiting: each asked Redis once. In one process the second may wait on
		// the local gate of the first without asking, so only the first is certain to have.
		int asked = oneProcess ? 1 : 2;
		await().atMost(Duration.ofSeconds(5)).until(() -> redis.server().scriptCalls() >= scriptsBefore + asked);
		holder.unlock();

		Attempt one = first.get(15, TimeUnit.SECONDS);
		Attempt other = second.get(15, TimeUnit.SECONDS);
		releaseWinner.countDown();
		assertThat(List.of(one.acquired(), other.acquired())).as("exactly one waiter wins").containsOnlyOnce(true);
		Attempt loser = one.acquired() ? other : one;
		assertThat(loser.waited()).as("the loser waited out its wait time").isGreaterThanOrEqualTo(WAIT);
	}

	private static DistLock obtain(RedisLockRegistry registry, String key, boolean fair) {
		return fair ? registry.obtainFair(key) : registry.obtain(key);
	}

	/**
	 * Wait for the lock on a thread of its own; report the outcome as soon as it is known, and
	 * keep a won lock until told to let go, so that the loser cannot take it.
	 */
	private CompletableFuture<Attempt> waitFor(DistLock lock, CountDownLatch releaseWinner) {
		CompletableFuture<Attempt> outcome = new CompletableFuture<>();
		this.registries.executor().execute(() -> {
			try {
				long start = System.nanoTime();
				boolean acquired = lock.tryLock(WAIT);
				outcome.complete(new Attempt(acquired, Duration.ofNanos(System.nanoTime() - start)));
				if (acquired) {
					releaseWinner.await(20, TimeUnit.SECONDS);
					lock.unlock();
				}
			}
			catch (Throwable ex) {
				outcome.completeExceptionally(ex);
			}
		});
		return outcome;
	}

	private RedisLockRegistry register(WaitStrategy waitStrategy) {
		return this.registries.redis((builder) -> builder.waitStrategy(waitStrategy));
	}

	private record Attempt(boolean acquired, Duration waited) {
	}

}

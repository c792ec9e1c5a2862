package io.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.distlock.core.DistLock;
import io.distlock.core.LockLease;
import io.distlock.core.LockListener;
import io.distlock.core.LockRegistry;
import io.distlock.core.WaitStrategy;
import io.distlock.test.redis.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * With {@link WaitStrategy#POLLING} on a Redis that refuses {@code PUBLISH} (the reason to poll):
 * a waiter of another process still marks that it waits (its fair place, a writer's mark, the
 * checkpoint's "someone waits"), and the holder's release, which then finds the key awaited,
 * publishes nothing and succeeds, for every kind of lock (a read lock's release awaited by a
 * writer included).
 */
@Timeout(60)
class PollingWithoutPublishIntegrationTests {

	private static RedisServer redis;

	@BeforeAll
	static void start() {
		redis = RedisServer.start("--rename-command", "PUBLISH", "renamed-publish");
	}

	@AfterAll
	static void stop() {
		redis.close();
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "exclusive", "fair", "write", "read" })
	void aReleaseAwaitedByAPollingWaiterOfAnotherProcessSucceeds(String kind) throws Exception {
		Function<LockRegistry, DistLock> lock = switch (kind) {
			case "exclusive" -> (registry) -> registry.obtain("polling:" + kind);
			case "fair" -> (registry) -> registry.obtainFair("polling:" + kind);
			default -> (registry) -> registry.obtainReadWrite("polling:" + kind).writeLock();
		};
		// A read lock's release, awaited by a writer: its own script.
		Function<LockRegistry, DistLock> heldLock = "read".equals(kind)
				? (registry) -> registry.obtainReadWrite("polling:" + kind).readLock() : lock;
		List<LockListener.ReleaseOutcome> released = new CopyOnWriteArrayList<>();
		LockListener outcomes = new LockListener() {

			@Override
			public void onReleased(LockLease lease, Duration held, ReleaseOutcome outcome) {
				released.add(outcome);
			}

		};
		try (RedisLockRegistry holderProcess = polling(outcomes); RedisLockRegistry waiterProcess = polling(LockListener.NONE)) {
			DistLock held = heldLock.apply(holderProcess);
			held.lock();
			CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
				DistLock waiting = lock.apply(waiterProcess);
				try {
					boolean acquired = waiting.tryLock(Duration.ofSeconds(20));
					if (acquired) {
						waiting.unlock();
					}
					return acquired;
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return false;
				}
			});
			await().atMost(Duration.ofSeconds(10)).until(() -> awaited(kind));
			held.unlock();
			// A script that fails after its DEL still frees the key: the outcome tells it apart.
			assertThat(released).containsExactly(LockListener.ReleaseOutcome.RELEASED);
			assertThat(waiter.get()).isTrue();
		}
	}

	/** Whether the waiter marked in Redis that it waits: the key a release checks before it publishes. */
	private static boolean awaited(String kind) {
		return Boolean.TRUE.equals(redis.template().hasKey("distlock:{polling:" + kind + "}:waiting"));
	}

	private static RedisLockRegistry polling(LockListener listener) {
		return RedisLockRegistry.builder(redis.connectionFactory())
			.instanceId(UUID.randomUUID().toString())
			.waitStrategy(WaitStrategy.POLLING)
			.listener(listener)
			.build();
	}

}

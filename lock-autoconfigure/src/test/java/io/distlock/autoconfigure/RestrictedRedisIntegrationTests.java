package io.distlock.autoconfigure;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.distlock.core.LockConfigurationException;
import io.distlock.core.LockLease;
import io.distlock.core.LockRegistry;
import io.distlock.test.redis.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Redis that renames commands, as managed services do: startup fails naming the command, the
 * property that needs it and what to do, and the lock keeps working where the command is
 * optional. Each test runs a real {@code redis-server} started with {@code --rename-command}.
 */
@Timeout(60)
class RestrictedRedisIntegrationTests {

	@Test
	void withoutEvalshaStartupFailsNamingIt() {
		try (RedisServer redis = RedisServer.start("--rename-command", "EVALSHA", "renamed-evalsha")) {
			DistlockRunners.withRedis(redis).run((context) -> {
				assertThat(context).hasFailed();
				assertThat(rootMessage(context.getStartupFailure(), LockConfigurationException.class))
					.contains("refuses EVALSHA")
					.contains("Lua scripting");
			});
		}
	}

	@Test
	void withoutWaitReplicaAcknowledgementFailsNamingTheProperty() {
		try (RedisServer redis = RedisServer.start("--rename-command", "WAIT", "renamed-wait")) {
			DistlockRunners.withRedis(redis)
				.withPropertyValues("distlock.replica-acknowledgement.replicas=1")
				.run((context) -> {
					assertThat(context).hasFailed();
					InvalidLockPropertyException failure = DistlockRunners.invalidProperty(context.getStartupFailure());
					assertThat(failure.getProperty()).isEqualTo("distlock.replica-acknowledgement.replicas");
					assertThat(failure.getMessage()).contains("WAIT").contains("replicas=0");
				});
		}
	}

	@Test
	void withoutWaitTheLockWorksWhenNoReplicaAcknowledgementIsAsked() {
		try (RedisServer redis = RedisServer.start("--rename-command", "WAIT", "renamed-wait")) {
			DistlockRunners.withRedis(redis).run((context) -> {
				assertThat(context).hasNotFailed();
				assertExclusive(context.getBean(LockRegistry.class));
			});
		}
	}

	@Test
	void withoutPublishPubSubWaitingFailsNamingTheProperty() {
		try (RedisServer redis = RedisServer.start("--rename-command", "PUBLISH", "renamed-publish")) {
			DistlockRunners.withRedis(redis).run((context) -> {
				assertThat(context).hasFailed();
				InvalidLockPropertyException failure = DistlockRunners.invalidProperty(context.getStartupFailure());
				assertThat(failure.getProperty()).isEqualTo("distlock.wait-strategy");
				assertThat(failure.getMessage()).contains("PUBLISH").contains("distlock.wait-strategy=polling");
			});
		}
	}

	@Test
	void withoutPublishPollingLocksHandOverBetweenWaiters() {
		try (RedisServer redis = RedisServer.start("--rename-command", "PUBLISH", "renamed-publish")) {
			DistlockRunners.withRedis(redis).withPropertyValues("distlock.wait-strategy=polling").run((context) -> {
				assertThat(context).hasNotFailed();
				assertExclusive(context.getBean(LockRegistry.class));
			});
		}
	}

	@Test
	void withoutSubscribeWaitersPollAndTheLockStillHandsOver() {
		// SUBSCRIBE is not probed at startup (it would hold a connection): the subscription fails
		// on its own thread, is retried on later waits, and waiters poll meanwhile.
		try (RedisServer redis = RedisServer.start("--rename-command", "SUBSCRIBE", "renamed-subscribe")) {
			DistlockRunners.withRedis(redis).run((context) -> {
				assertThat(context).hasNotFailed();
				assertExclusive(context.getBean(LockRegistry.class));
			});
		}
	}

	@Test
	void withoutTimeStartupFailsNamingIt() {
		// The acquire scripts call TIME: without it no lock can be granted.
		try (RedisServer redis = RedisServer.start("--rename-command", "TIME", "renamed-time")) {
			DistlockRunners.withRedis(redis).run((context) -> {
				assertThat(context).hasFailed();
				assertThat(rootMessage(context.getStartupFailure(), LockConfigurationException.class))
					.contains("refuses TIME")
					.contains("fencing tokens");
			});
		}
	}

	@Test
	void aRedlockNodeWithoutTimeStopsStartupNamingTheNode() {
		// One node of three refusing TIME would grant nothing: a node is checked as the one Redis is.
		try (RedisServer first = RedisServer.start(); RedisServer restricted = RedisServer.start("--rename-command",
				"TIME", "renamed-time"); RedisServer third = RedisServer.start()) {
			DistlockRunners.withRedlock(first, restricted, third)
				.withPropertyValues("distlock.redlock.per-node-timeout=200ms")
				.run((context) -> {
					assertThat(context).hasFailed();
					assertThat(rootMessage(context.getStartupFailure(), LockConfigurationException.class))
						.startsWith("The Redlock node 127.0.0.1:" + restricted.port() + " refuses TIME");
				});
		}
	}

	/**
	 * A holder, a waiter on another thread that gets the lock once the holder releases it.
	 */
	private static void assertExclusive(LockRegistry registry) throws Exception {
		String key = "restricted:" + System.nanoTime();
		CountDownLatch waiting = new CountDownLatch(1);
		CompletableFuture<Long> waiter;
		try (LockLease held = registry.acquire(key, Duration.ofSeconds(1))) {
			waiter = CompletableFuture.supplyAsync(() -> {
				assertThat(registry.tryAcquire(key, Duration.ZERO)).isEmpty();
				waiting.countDown();
				try (LockLease next = registry.acquire(key, Duration.ofSeconds(10))) {
					return next.fencingToken();
				}
			});
			assertThat(waiting.await(10, TimeUnit.SECONDS)).isTrue();
			assertThat(held.fencingToken()).isPositive();
		}
		assertThat(waiter.get(15, TimeUnit.SECONDS)).isPositive();
	}

	private static String rootMessage(Throwable failure, Class<? extends Throwable> type) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (type.isInstance(cause)) {
				return cause.getMessage();
			}
		}
		throw new AssertionError("No " + type.getSimpleName() + " in", failure);
	}

}

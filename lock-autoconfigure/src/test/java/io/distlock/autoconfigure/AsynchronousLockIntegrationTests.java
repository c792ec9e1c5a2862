package io.distlock.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.lettuce.core.api.async.RedisAsyncCommands;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.distlock.annotation.DistributedLock;
import io.distlock.annotation.OnFailure;
import io.distlock.core.LockLease;
import io.distlock.core.LockLostException;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * Annotated methods that return a {@link CompletableFuture}, on a real Redis: {@code SKIP}
 * returns a future already completed with {@code null} without running the method, and a lock
 * lost while the future runs fails the returned stage with {@link LockLostException}.
 */
@Timeout(60)
class AsynchronousLockIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private RedisLockRegistry other;

	private ApplicationContextRunner runner() {
		return DistlockRunners.withRedis(redis.server())
			.withPropertyValues("distlock.lease-time=900ms")
			.withBean("rebuilds", Rebuilds.class);
	}

	@AfterEach
	void closeOtherInstance() {
		if (this.other != null) {
			this.other.close();
		}
	}

	@Test
	void skipReturnsACompletedFutureWithoutRunningTheMethod() {
		runner().run((context) -> {
			Rebuilds rebuilds = context.getBean(Rebuilds.class);
			this.other = new RedisLockRegistry(redis.server().connectionFactory());
			try (LockLease held = this.other.acquire("rebuild:nightly", Duration.ZERO)) {
				CompletableFuture<String> skipped = rebuilds.nightly(CompletableFuture.completedFuture("ran"));
				assertThat(skipped).isCompletedWithValue(null);
			}
			assertThat(rebuilds.calls()).isZero();
			// Control: with the lock free, the method runs and its own future is returned.
			assertThat(rebuilds.nightly(CompletableFuture.completedFuture("ran"))).isCompletedWithValue("ran");
			assertThat(rebuilds.calls()).isEqualTo(1);
		});
	}

	@Test
	void aLockLostWhileTheFutureRunsFailsTheReturnedStage() throws Exception {
		runner().run((context) -> {
			Rebuilds rebuilds = context.getBean(Rebuilds.class);
			CompletableFuture<String> work = new CompletableFuture<>();
			CompletableFuture<String> result = rebuilds.rebuild(work);
			String lockKey = "distlock:{rebuild:cache}";
			assertThat(redis.server().template().hasKey(lockKey)).isTrue();
			redis.server().template().delete(lockKey);
			// The watchdog's next renewal (every 300 ms) is refused: the lock is lost while held.
			await().atMost(Duration.ofSeconds(5))
				.until(() -> context.getBean(RedisLockRegistry.class).getLossStatistics().lostCount() == 1);
			work.complete("rebuilt on a lost lock");
			Throwable failure = catchThrowable(() -> result.get(5, TimeUnit.SECONDS));
			assertThat(failure).isInstanceOf(ExecutionException.class).cause().isInstanceOf(LockLostException.class)
				.hasMessageContaining("rebuild:cache");
		});
	}

	@Test
	void negativeControlAStageWhoseLockWasKeptCompletesWithItsValue() throws Exception {
		runner().run((context) -> {
			Rebuilds rebuilds = context.getBean(Rebuilds.class);
			CompletableFuture<String> work = new CompletableFuture<>();
			CompletableFuture<String> result = rebuilds.rebuild(work);
			// Three leases long: only renewals keep it, as in the lost case above.
			Thread.sleep(2_700);
			work.complete("rebuilt");
			assertThat(result.get(5, TimeUnit.SECONDS)).isEqualTo("rebuilt");
		});
	}

	@Test
	void aStageCompletedOnTheRedisDriversThreadIsReleasedWithoutBlockingIt() throws Exception {
		DistlockRunners.withRedisAndMetrics(redis.server())
			.withPropertyValues("distlock.lease-time=900ms")
			.withBean("rebuilds", Rebuilds.class)
			.run((context) -> {
				Rebuilds rebuilds = context.getBean(Rebuilds.class);
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				CompletableFuture<String> work = new CompletableFuture<>();
				CompletableFuture<String> result = rebuilds.rebuild(work);
				// The method's stage completes on the thread that reads the replies of the
				// connection the locks use (the factory's shared one), as a stage built on the
				// driver's own futures does: the reply of a BLPOP on that connection, sent before
				// the element it waits for is pushed from another connection.
				RedisConnection connection = context.getBean(LettuceConnectionFactory.class).getConnection();
				@SuppressWarnings("unchecked")
				RedisAsyncCommands<byte[], byte[]> shared = (RedisAsyncCommands<byte[], byte[]>) connection
					.getNativeConnection();
				AtomicReference<String> completingThread = new AtomicReference<>();
				CompletableFuture<Void> completed = shared.blpop(10, "rebuild:signal".getBytes(StandardCharsets.UTF_8))
					.thenAccept((popped) -> {
						completingThread.set(Thread.currentThread().getName());
						work.complete("rebuilt");
					})
					.toCompletableFuture();
				redis.server().template().opsForList().leftPush("rebuild:signal", "go");
				assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("rebuilt");
				completed.get(10, TimeUnit.SECONDS);
				connection.close();
				assertThat(completingThread.get()).as("the premise: completed on the driver's thread").contains("lettuce");
				assertThat(redis.server().template().hasKey("distlock:{rebuild:cache}")).isFalse();
				// A release that blocks the thread that must read its reply waits out its bound
				// and is counted as failed.
				assertThat(meters.find("distlock.release").tag("outcome", "failed").counter()).isNull();
				assertThat(meters.find("distlock.release").tag("outcome", "released").counter()).isNotNull();
			});
	}

	public static class Rebuilds {

		private final AtomicInteger calls = new AtomicInteger();

		public int calls() {
			return this.calls.get();
		}

		@DistributedLock(key = "'rebuild:nightly'", waitTime = "0s", onFailure = OnFailure.SKIP)
		public CompletableFuture<String> nightly(CompletableFuture<String> work) {
			this.calls.incrementAndGet();
			return work;
		}

		@DistributedLock(key = "'rebuild:cache'", waitTime = "0s")
		public CompletableFuture<String> rebuild(CompletableFuture<String> work) {
			return work;
		}

	}

}

package io.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Mono;

import io.distlock.core.LockLease;
import io.distlock.core.LockListener;
import io.distlock.core.LockLostException;
import io.distlock.core.LockRequest;
import io.distlock.reactive.ReactiveLocks;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * No user code on the Redis driver's threads nor on the registry's own: every piece of code a
 * user hands the asynchronous API (a dependent of {@code acquireAsync}, {@code releaseAsync},
 * {@code confirmAsync} or {@code extendAsync}, the task of {@code executeLockedAsync}, a reactive
 * body, an {@code onLost} callback, a listener) records the thread it runs on, in scenarios where
 * the engine finishes its work on those threads: a grant answered by Redis after a wait, a
 * release answered by Redis, a release asked for on a Lettuce thread that hands the lock to the
 * next holder, a loss found by the watchdog. The detector reads thread names only (Lettuce's
 * {@code lettuce-*}, the registry's {@code distlock-*} other than its continuation pool), not
 * the engine's own classification.
 * <p>
 * The negative control runs the same scenarios with a direct executor on every request, which
 * runs each continuation where the engine completes it, as the engine did before it placed
 * them: the detector must then see user code on a Lettuce thread and on the watchdog's.
 */
@Timeout(60)
class UserCodeThreadsIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(10);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	/** Where each piece of user code ran: a label, then every thread name it ran on. */
	private final Map<String, List<String>> ran = new ConcurrentHashMap<>();

	private RedisLockRegistry first;

	private RedisLockRegistry second;

	private RedisClient client;

	private StatefulRedisConnection<String, String> connection;

	@BeforeEach
	void startRegistries() {
		LockListener listener = new LockListener() {

			@Override
			public void onAcquired(LockLease lease, Duration waited) {
				record("listener onAcquired");
			}

			@Override
			public void onReleased(LockLease lease, Duration held, ReleaseOutcome outcome) {
				record("listener onReleased");
			}

			@Override
			public void onLost(LockLease lease, LockLostException reason) {
				record("listener onLost");
			}

		};
		this.first = RedisLockRegistry.builder(redis.server().connectionFactory()).listener(listener).build();
		this.second = RedisLockRegistry.builder(redis.server().newConnectionFactory(Duration.ofSeconds(2)))
			.listener(listener)
			.build();
		this.client = RedisClient.create(RedisURI.create("localhost", redis.server().port()));
		this.connection = this.client.connect();
	}

	@AfterEach
	void stopRegistries() {
		this.first.close();
		this.second.close();
		this.connection.close();
		this.client.shutdown();
	}

	@Test
	void userCodeNeverRunsOnTheDriversOrTheRegistrysThreads() throws Exception {
		runScenarios(null);
		assertThat(this.ran).containsKeys("acquireAsync dependent", "executeLockedAsync task",
				"executeLockedAsync result", "releaseAsync dependent", "confirmAsync dependent",
				"extendAsync dependent", "onLost callback", "listener onLost", "listener onReleased",
				"handed-over acquireAsync dependent", "reactive body");
		assertThat(foreign()).isEmpty();
	}

	@Test
	void negativeControlADirectExecutorRunsUserCodeOnTheDriversAndTheWatchdogsThreads() throws Exception {
		runScenarios(Runnable::run);
		System.out.println("Negative control, user code on foreign threads: " + foreign());
		assertThat(foreign()).anySatisfy((ran) -> assertThat(ran).contains("on lettuce-"))
			.anySatisfy((ran) -> assertThat(ran).contains("on distlock-"));
	}

	private void runScenarios(Executor executor) throws Exception {
		grantAfterAWait(executor);
		executeLockedAfterAWait(executor);
		releaseConfirmAndExtend(executor);
		lossFoundByTheWatchdog(executor);
		handoffFromAReleaseOnADriverThread(executor);
		reactiveBodyAfterAWait(executor);
	}

	/** Another registry holds the key; the grant comes from Redis once it releases. */
	private void grantAfterAWait(Executor executor) throws Exception {
		String key = newKey();
		LockLease holder = this.first.acquire(key, WAIT);
		CompletableFuture<LockLease> waiting = this.second.acquireAsync(request(key, executor)).toCompletableFuture();
		CompletableFuture<Void> dependent = waiting.thenAccept((lease) -> record("acquireAsync dependent"));
		holder.release();
		dependent.get(10, TimeUnit.SECONDS);
		waiting.join().release();
	}

	private void executeLockedAfterAWait(Executor executor) throws Exception {
		String key = newKey();
		LockLease holder = this.first.acquire(key, WAIT);
		CompletableFuture<String> result = this.second.executeLockedAsync(request(key, executor), (lease) -> {
			record("executeLockedAsync task");
			return CompletableFuture.completedFuture("done");
		}).toCompletableFuture();
		CompletableFuture<Void> dependent = result.thenAccept((value) -> record("executeLockedAsync result"));
		holder.release();
		dependent.get(10, TimeUnit.SECONDS);
	}

	/** Dependents registered before Redis answers, so they run where the answer is finished. */
	private void releaseConfirmAndExtend(Executor executor) throws Exception {
		LockLease lease = this.second.acquireAsync(request(newKey(), executor).leaseTime(Duration.ofSeconds(30)))
			.toCompletableFuture()
			.get(10, TimeUnit.SECONDS);
		lease.confirmAsync().thenRun(() -> record("confirmAsync dependent")).toCompletableFuture()
			.get(10, TimeUnit.SECONDS);
		lease.extendAsync(Duration.ofSeconds(30)).thenRun(() -> record("extendAsync dependent"))
			.toCompletableFuture()
			.get(10, TimeUnit.SECONDS);
		lease.releaseAsync().thenRun(() -> record("releaseAsync dependent")).toCompletableFuture()
			.get(10, TimeUnit.SECONDS);
	}

	/** A fixed lease runs out while held: the watchdog's deadline check declares it lost. */
	private void lossFoundByTheWatchdog(Executor executor) throws Exception {
		LockLease lease = this.second.acquireAsync(request(newKey(), executor).leaseTime(Duration.ofMillis(200)))
			.toCompletableFuture()
			.get(10, TimeUnit.SECONDS);
		lease.onLost((lost) -> record("onLost callback"));
		await().atMost(Duration.ofSeconds(10)).until(() -> this.ran.containsKey("onLost callback"));
		lease.releaseAsync().exceptionally((ex) -> null).toCompletableFuture().get(10, TimeUnit.SECONDS);
	}

	/**
	 * A holder releases from a dependent of its own Lettuce call, on Lettuce's thread, as a
	 * reactive body that emits there does; the lock goes to the next waiter of the same registry.
	 */
	private void handoffFromAReleaseOnADriverThread(Executor executor) throws Exception {
		String key = newKey();
		LockLease holder = this.second.acquireAsync(request(key, executor)).toCompletableFuture()
			.get(10, TimeUnit.SECONDS);
		CompletableFuture<LockLease> next = this.second.acquireAsync(request(key, executor)).toCompletableFuture();
		CompletableFuture<Void> dependent = next
			.thenAccept((lease) -> record("handed-over acquireAsync dependent"));
		this.connection.async().get(key).thenAccept((value) -> holder.releaseAsync());
		dependent.get(10, TimeUnit.SECONDS);
		next.join().release();
	}

	private void reactiveBodyAfterAWait(Executor executor) throws Exception {
		String key = newKey();
		LockLease holder = this.first.acquire(key, WAIT);
		CompletableFuture<String> held = ReactiveLocks
			.withLock(this.second, request(key, executor), (lease) -> Mono.fromCallable(() -> {
				record("reactive body");
				return "done";
			}))
			.toFuture();
		holder.release();
		held.get(10, TimeUnit.SECONDS);
	}

	private static LockRequest request(String key, Executor executor) {
		return LockRequest.of(key).waitTime(WAIT).executor(executor);
	}

	private static String newKey() {
		return "user-code-threads:" + UUID.randomUUID();
	}

	private void record(String label) {
		this.ran.computeIfAbsent(label, (ignored) -> new CopyOnWriteArrayList<>())
			.add(Thread.currentThread().getName());
	}

	/**
	 * Return "label on thread" for every run on a Lettuce thread or on a registry thread that
	 * is not its continuation pool.
	 */
	private List<String> foreign() {
		List<String> foreign = new ArrayList<>();
		this.ran.forEach((label, threads) -> {
			for (String thread : threads) {
				if (thread.startsWith("lettuce-")
						|| (thread.startsWith("distlock-") && !thread.startsWith("distlock-async-"))) {
					foreign.add(label + " on " + thread);
				}
			}
		});
		return foreign;
	}

}

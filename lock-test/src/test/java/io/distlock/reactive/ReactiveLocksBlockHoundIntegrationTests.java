package io.distlock.reactive;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import reactor.blockhound.BlockHound;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import io.distlock.core.LockAcquisitionException;
import io.distlock.core.LockLease;
import io.distlock.core.LockLostException;
import io.distlock.core.LockRequest;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * BlockHound over {@link ReactiveLocks} on a real Redis: no blocking call on a Reactor thread or
 * a Netty event loop (the Lettuce threads that grant and release locks), nor on the registry's
 * timer thread, anywhere in the acquire, contend, hold, cancel, lose and release paths.
 * BlockHound records what it finds instead of throwing, so that a blocking call swallowed inside
 * a driver callback still fails the test. A body granted on the driver's thread runs on
 * Reactor's bounded-elastic scheduler instead, where it may block; a negative control runs it
 * where the grant is completed (a direct executor) and shows BlockHound catching its blocking
 * call there. The only waits distlock declares harmless are its own, through
 * {@link DistlockBlockHoundIntegration}, which BlockHound loads as any application's would.
 * <p>
 * Runs in a JVM of its own (the {@code blockhound} surefire execution of this module), since
 * BlockHound instruments the JVM for good.
 */
@Timeout(120)
class ReactiveLocksBlockHoundIntegrationTests {

	private static final List<String> blockingCalls = new CopyOnWriteArrayList<>();

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private static LettuceConnectionFactory secondConnections;

	private static RedisLockRegistry first;

	private static RedisLockRegistry second;

	private String key;

	@BeforeAll
	static void installBlockHound() {
		// The registry's timer thread runs continuations too (it ends waits and grants between
		// store attempts): it must not block either.
		BlockHound.install((builder) -> builder
			.nonBlockingThreadPredicate((current) -> current.or((thread) -> thread.getName().startsWith("distlock-wait-")))
			// Lettuce's own writer count: a command written from any thread takes SharedLock's
			// ReentrantLock for a few field updates, so two threads writing on one connection at
			// once may park for that long. Any Lettuce command sent from a Reactor thread does the
			// same (lettuce#2510); it is the driver's, not a blocking call of distlock or of a body.
			.allowBlockingCallsInside("io.lettuce.core.protocol.SharedLock", "incrementWriters")
			.blockingMethodCallback((method) -> {
			String stack = stackTrace();
			// An idle scheduler worker (Reactor's parallel-N) parked in ThreadPoolExecutor.getTask
			// waits for its next task; no task is blocking. (allowBlockingCallsInside did not take
			// effect on this JDK class, so the frame is checked here.)
			String call = method + " on " + Thread.currentThread().getName() + "\n" + stack;
			if (stack.contains("java.util.concurrent.ThreadPoolExecutor.getTask")) {
				return;
			}
			blockingCalls.add(call);
		}));
		secondConnections = redis.server().newConnectionFactory(Duration.ofSeconds(2));
		first = RedisLockRegistry.builder(redis.server().connectionFactory()).leaseTime(Duration.ofMillis(900)).build();
		second = RedisLockRegistry.builder(secondConnections).leaseTime(Duration.ofMillis(900)).build();
	}

	@AfterAll
	static void closeRegistries() {
		first.close();
		second.close();
		secondConnections.destroy();
	}

	@BeforeEach
	void newKey() {
		this.key = "blockhound:" + UUID.randomUUID();
		blockingCalls.clear();
	}

	@Test
	void contendedMonoAndFluxHoldsMakeNoBlockingCallOnANonBlockingThread() {
		AsyncLostUpdateCounter counter = new AsyncLostUpdateCounter();
		List<Flux<Integer>> holds = new ArrayList<>();
		for (int i = 0; i < 50; i++) {
			holds.add(ReactiveLocks.withLock(first, request(), (lease) -> counter.increment()).flux());
			holds.add(ReactiveLocks.withLockMany(second, request(),
					(lease) -> ReactiveLockContext.current().flatMapMany((current) -> counter.increment())));
		}
		Flux.merge(holds).blockLast(Duration.ofSeconds(60));
		assertThat(counter.value()).isEqualTo(100);
		assertThat(blockingCalls).isEmpty();
	}

	@Test
	void timeoutsCancellationsAndLossesMakeNoBlockingCallOnANonBlockingThread() {
		// Not acquired within the wait time, across instances.
		Disposable holder = ReactiveLocks.withLock(second, request(), (lease) -> Mono.never()).subscribe();
		await().atMost(Duration.ofSeconds(5)).until(() -> keyExists(this.key));
		StepVerifier
			.create(ReactiveLocks.withLock(first, LockRequest.of(this.key).waitTime(Duration.ofMillis(200)),
					(lease) -> Mono.just("ran")))
			.expectError(LockAcquisitionException.class)
			.verify(Duration.ofSeconds(10));
		// Cancelled while waiting, then the holder cancelled.
		ReactiveLocks.withLock(first, request(), (lease) -> Mono.just("ran")).subscribe().dispose();
		holder.dispose();
		await().atMost(Duration.ofSeconds(5)).until(() -> !keyExists(this.key));
		// Lost while held.
		StepVerifier.create(ReactiveLocks.withLockMany(first, request(), (lease) -> Flux.interval(Duration.ofMillis(20))))
			.expectNextCount(1)
			.then(() -> redis.server().template().delete("distlock:{" + this.key + "}"))
			.thenConsumeWhile((tick) -> true)
			.expectError(LockLostException.class)
			.verify(Duration.ofSeconds(10));
		assertThat(blockingCalls).isEmpty();
	}

	@Test
	void aBodyGrantedOnTheDriversThreadRunsOnTheBoundedElasticSchedulerWhereItMayBlock() throws Exception {
		assertThat(bodyThreadAfterAGrantFromRedis(request())).startsWith("boundedElastic-");
		assertThat(blockingCalls).isEmpty();
	}

	@Test
	void negativeControlABlockingBodyRunOnTheThreadThatGrantedTheLockIsCaught() throws Exception {
		// A direct executor runs the body where the grant is completed, as distlock once did.
		assertThat(bodyThreadAfterAGrantFromRedis(request().executor(Runnable::run)))
			.matches("(lettuce-|distlock-wait-).*");
		assertThat(blockingCalls).anySatisfy((call) -> assertThat(call).contains("java.lang.Thread.sleep")
			.contains("sleepOneMillisecond"));
	}

	/**
	 * Run a body that blocks for a millisecond under a lock granted by Redis (the other instance
	 * holds the key first: a free key may be granted on the subscribing thread itself) and return
	 * the thread it ran on.
	 */
	private String bodyThreadAfterAGrantFromRedis(LockRequest request) throws Exception {
		// The key is free: a wait of seconds only absorbs a slow first answer on a loaded machine.
		LockLease holder = second.acquire(this.key, Duration.ofSeconds(10));
		List<String> threads = new CopyOnWriteArrayList<>();
		CompletableFuture<Object> locked = ReactiveLocks.withLock(first, request, (lease) -> {
			threads.add(Thread.currentThread().getName());
			return Mono.fromRunnable(ReactiveLocksBlockHoundIntegrationTests::sleepOneMillisecond);
		}).toFuture();
		holder.release();
		locked.get(10, TimeUnit.SECONDS);
		assertThat(threads).hasSize(1);
		return threads.get(0);
	}

	@Test
	void negativeControlABlockingCallOnAReactorThreadIsCaught() {
		Mono.delay(Duration.ofMillis(1)).doOnNext((tick) -> sleepOneMillisecond()).block(Duration.ofSeconds(10));
		assertThat(blockingCalls).anySatisfy((call) -> assertThat(call).contains("parallel-"));
	}

	private static void sleepOneMillisecond() {
		try {
			Thread.sleep(1);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private LockRequest request() {
		return LockRequest.of(this.key).waitTime(Duration.ofSeconds(30));
	}

	private static boolean keyExists(String key) {
		return Boolean.TRUE.equals(redis.server().template().hasKey("distlock:{" + key + "}"));
	}

	private static String stackTrace() {
		StringBuilder trace = new StringBuilder();
		for (StackTraceElement element : Thread.currentThread().getStackTrace()) {
			trace.append("\tat ").append(element).append('\n');
		}
		return trace.toString();
	}

}

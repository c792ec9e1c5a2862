package io.distlock.reactive;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

import io.distlock.core.LockAcquisitionException;
import io.distlock.core.LockLease;
import io.distlock.core.LockLostException;
import io.distlock.core.LockRegistry;
import io.distlock.core.LockRequest;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * {@link ReactiveLocks} on a real Redis, with two registries on connections of their own
 * standing for two application instances.
 */
@Timeout(120)
class ReactiveLocksIntegrationTests {

	private static final Duration LONG_WAIT = Duration.ofSeconds(30);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private LettuceConnectionFactory secondConnections;

	private RedisLockRegistry first;

	private RedisLockRegistry second;

	private String key;

	@BeforeEach
	void startInstances() {
		this.secondConnections = redis.server().newConnectionFactory(Duration.ofSeconds(2));
		// A short lease, so that a deleted key is found lost within a third of a second.
		this.first = RedisLockRegistry.builder(redis.server().connectionFactory())
			.leaseTime(Duration.ofMillis(900))
			.build();
		this.second = RedisLockRegistry.builder(this.secondConnections).leaseTime(Duration.ofMillis(900)).build();
		this.key = "reactive:" + UUID.randomUUID();
	}

	@AfterEach
	void stopInstances() {
		this.first.close();
		this.second.close();
		this.secondConnections.destroy();
	}

	@Test
	void monoHoldsExcludeEachOtherAcrossTwoInstances() {
		AsyncLostUpdateCounter counter = new AsyncLostUpdateCounter();
		List<Mono<Integer>> increments = new ArrayList<>();
		for (int i = 0; i < 100; i++) {
			increments.add(ReactiveLocks.withLock(this.first, request(), (lease) -> counter.increment()));
			increments.add(ReactiveLocks.withLock(this.second, request(), (lease) -> counter.increment()));
		}
		List<Integer> seen = Flux.merge(increments).collectList().block(LONG_WAIT);
		assertThat(counter.value()).as("a non-atomic counter incremented under the lock").isEqualTo(200);
		assertThat(seen).doesNotHaveDuplicates();
	}

	@Test
	void negativeControlMonoIncrementsWithoutTheLockLoseUpdates() {
		AsyncLostUpdateCounter counter = new AsyncLostUpdateCounter();
		List<Mono<Integer>> increments = new ArrayList<>();
		for (int i = 0; i < 200; i++) {
			increments.add(counter.increment());
		}
		Flux.merge(increments).blockLast(LONG_WAIT);
		assertThat(counter.value()).as("the detector sees overlapping increments").isLessThan(200);
	}

	@Test
	void fluxHoldsExcludeEachOtherAcrossTwoInstances() {
		AsyncLostUpdateCounter counter = new AsyncLostUpdateCounter();
		List<Flux<Integer>> holds = new ArrayList<>();
		for (int i = 0; i < 50; i++) {
			holds.add(ReactiveLocks.withLockMany(this.first, request(), (lease) -> threeIncrements(counter)));
			holds.add(ReactiveLocks.withLockMany(this.second, request(), (lease) -> threeIncrements(counter)));
		}
		List<Integer> seen = Flux.merge(holds).collectList().block(LONG_WAIT);
		assertThat(counter.value()).isEqualTo(300);
		assertThat(seen).hasSize(300).doesNotHaveDuplicates();
	}

	@Test
	void negativeControlFluxIncrementsWithoutTheLockLoseUpdates() {
		AsyncLostUpdateCounter counter = new AsyncLostUpdateCounter();
		List<Flux<Integer>> holds = new ArrayList<>();
		for (int i = 0; i < 100; i++) {
			holds.add(threeIncrements(counter));
		}
		Flux.merge(holds).blockLast(LONG_WAIT);
		assertThat(counter.value()).isLessThan(300);
	}

	@Test
	void theLockIsHeldUntilTheMonoCompletesAndItsValueComesAfterTheRelease() throws Exception {
		Sinks.One<String> work = Sinks.one();
		AtomicReference<LockLease> held = new AtomicReference<>();
		AtomicReference<Boolean> validWhenEmitted = new AtomicReference<>();
		Mono<String> locked = ReactiveLocks.withLock(this.first, request(), (lease) -> {
			held.set(lease);
			return work.asMono();
		}).doOnNext((value) -> validWhenEmitted.set(held.get().isValid()));
		var result = locked.toFuture();
		await().atMost(Duration.ofSeconds(5)).until(() -> held.get() != null);
		// Three leases long: only the watchdog keeps it.
		assertThat(this.second.tryAcquire(this.key, Duration.ofMillis(2_700))).isEmpty();
		assertThat(redisKeyExists()).isTrue();
		work.tryEmitValue("done");
		assertThat(result.get(5, TimeUnit.SECONDS)).isEqualTo("done");
		assertThat(validWhenEmitted.get()).as("the lease was released before the value was emitted").isFalse();
		assertThat(redisKeyExists()).isFalse();
	}

	@Test
	void eachSubscriptionTakesItsOwnHold() {
		AtomicInteger grants = new AtomicInteger();
		List<Long> tokens = new ArrayList<>();
		Mono<Long> locked = ReactiveLocks.withLock(this.first, request(), (lease) -> {
			grants.incrementAndGet();
			return Mono.just(lease.fencingToken());
		});
		tokens.add(locked.block(LONG_WAIT));
		tokens.add(locked.block(LONG_WAIT));
		assertThat(grants).hasValue(2);
		assertThat(tokens.get(1)).isGreaterThan(tokens.get(0));
	}

	@Test
	void cancellingAHoldReleasesItAndTheNextWaiterIsGrantedAtOnce() throws Exception {
		AtomicBoolean bodyCancelled = new AtomicBoolean();
		Disposable holder = ReactiveLocks
			.withLockMany(this.first, request(), (lease) -> Flux.never().doOnCancel(() -> bodyCancelled.set(true)))
			.subscribe();
		await().atMost(Duration.ofSeconds(5)).until(this::redisKeyExists);
		var next = this.second.acquireAsync(request()).toCompletableFuture();
		assertThat(next).isNotDone();
		long cancelledAt = System.nanoTime();
		holder.dispose();
		LockLease granted = next.get(5, TimeUnit.SECONDS);
		Duration waited = Duration.ofNanos(System.nanoTime() - cancelledAt);
		assertThat(bodyCancelled).isTrue();
		assertThat(waited).as("the next waiter is woken by the release, not by a timeout").isLessThan(Duration.ofSeconds(1));
		granted.release();
		assertThat(redisKeyExists()).isFalse();
	}

	@Test
	void cancellingWhileWaitingGivesUpThePlaceInLineAndLeavesNoKey() {
		LockLease holder = this.second.acquire(this.key, Duration.ZERO);
		AtomicBoolean bodyCalled = new AtomicBoolean();
		Disposable waiter = ReactiveLocks.withLock(this.first, request(), (lease) -> {
			bodyCalled.set(true);
			return Mono.never();
		}).subscribe();
		waiter.dispose();
		holder.release();
		await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until(() -> !redisKeyExists());
		assertThat(bodyCalled).isFalse();
	}

	@Test
	void aLostLockFailsTheFluxWithLockLostExceptionAndCancelsTheBody() {
		AtomicBoolean bodyCancelled = new AtomicBoolean();
		Flux<Long> locked = ReactiveLocks.withLockMany(this.first, request(),
				(lease) -> Flux.interval(Duration.ofMillis(50)).doOnCancel(() -> bodyCancelled.set(true)));
		StepVerifier.create(locked)
			.expectNextCount(1)
			.then(() -> redis.server().template().delete(redisKey()))
			.thenConsumeWhile((tick) -> true)
			.expectErrorSatisfies((error) -> assertThat(error).isInstanceOf(LockLostException.class)
				.hasMessageContaining(this.key))
			.verify(Duration.ofSeconds(10));
		assertThat(bodyCancelled).isTrue();
	}

	@Test
	void aLostLockFailsTheMonoWithLockLostException() {
		Mono<String> locked = ReactiveLocks.withLock(this.first, request(), (lease) -> Mono.never());
		StepVerifier.create(locked)
			.then(() -> await().atMost(Duration.ofSeconds(5)).until(this::redisKeyExists))
			.then(() -> redis.server().template().delete(redisKey()))
			.expectError(LockLostException.class)
			.verify(Duration.ofSeconds(10));
	}

	@Test
	void notAcquiredWithinTheWaitTimeFailsWithLockAcquisitionExceptionWithoutCallingTheBody() {
		LockLease holder = this.second.acquire(this.key, Duration.ZERO);
		AtomicBoolean bodyCalled = new AtomicBoolean();
		long start = System.nanoTime();
		Throwable failure = catchThrowable(() -> ReactiveLocks
			.withLock(this.first, LockRequest.of(this.key).waitTime(Duration.ofMillis(300)), (lease) -> {
				bodyCalled.set(true);
				return Mono.just("ran");
			})
			.block(LONG_WAIT));
		Duration took = Duration.ofNanos(System.nanoTime() - start);
		holder.release();
		assertThat(failure).isInstanceOf(LockAcquisitionException.class).hasMessageContaining("within 300ms");
		assertThat(took).isBetween(Duration.ofMillis(300), Duration.ofMillis(2_000));
		assertThat(bodyCalled).isFalse();
	}

	@Test
	void theDocumentedCallsHoldTheLockForTheWholePublisher() {
		LockRegistry registry = this.first;
		List<Long> written = new CopyOnWriteArrayList<>();
		Function<Long, Mono<Long>> write = (token) -> {
			written.add(token);
			return Mono.just(token);
		};
		// tag::programmatic[]
		Mono<Long> reserved = ReactiveLocks.withLock(registry,
				LockRequest.of("stock:7").waitTime(Duration.ofSeconds(2)),
				(lease) -> write.apply(lease.fencingToken()));

		Flux<Integer> exported = ReactiveLocks.withLockMany(registry, LockRequest.of("export"),
				(lease) -> Flux.range(1, 3).delayElements(Duration.ofMillis(10)));
		// end::programmatic[]
		assertThat(reserved.block(LONG_WAIT)).isEqualTo(written.get(0)).isPositive();
		assertThat(exported.collectList().block(LONG_WAIT)).containsExactly(1, 2, 3);
	}

	@Test
	void theLeaseInTheReactorContextIsTheHoldsLease() {
		Mono<List<Long>> tokens = ReactiveLocks.withLock(this.first, request(),
				(lease) -> ReactiveLockContext.current()
					.map((current) -> List.of(lease.fencingToken(), current.fencingToken())));
		List<Long> pair = tokens.block(LONG_WAIT);
		assertThat(pair.get(1)).isEqualTo(pair.get(0)).isPositive();
		StepVerifier.create(ReactiveLockContext.current()).expectError(IllegalStateException.class).verify();
		StepVerifier.create(ReactiveLockContext.find()).verifyComplete();
	}

	@Test
	void aNestedHoldOfTheSameKeyInTheSameChainReentersWithoutWaiting() {
		LockRequest noWait = LockRequest.of(this.key).waitTime(Duration.ZERO);
		Mono<List<Long>> nested = ReactiveLocks.withLock(this.first, request(),
				(outer) -> ReactiveLocks.withLock(this.first, noWait,
						(inner) -> Mono.just(List.of(outer.fencingToken(), inner.fencingToken()))));
		List<Long> tokens = nested.block(LONG_WAIT);
		assertThat(tokens.get(1)).isEqualTo(tokens.get(0));
		assertThat(redisKeyExists()).isFalse();
		// Control: outside the chain the same request waits like anyone else, and fails at once.
		Mono<Throwable> outside = ReactiveLocks.withLock(this.first, request(),
				(outer) -> ReactiveLocks.withLock(this.first, noWait, (inner) -> Mono.<Throwable>empty())
					.contextWrite((context) -> context.delete(ReactiveLockContext.class))
					.onErrorResume(Mono::just));
		assertThat(outside.block(LONG_WAIT)).isInstanceOf(LockAcquisitionException.class);
	}

	@Test
	void severalKeysAreTakenAllOrNone() {
		String other = this.key + ":b";
		// The holder renews on the default 30 s lease: this test is about the reactive side.
		try (RedisLockRegistry holders = RedisLockRegistry.builder(this.secondConnections).build()) {
			LockLease holder = holders.acquire(other, Duration.ZERO);
			assertAllOrNone(other, holder);
		}
	}

	private void assertAllOrNone(String other, LockLease holder) {
		Throwable failure = catchThrowable(() -> ReactiveLocks
			.withLocks(this.first, List.of(LockRequest.of(other).waitTime(Duration.ofMillis(200)),
					LockRequest.of(this.key).waitTime(Duration.ofMillis(200))), (leases) -> Mono.just("ran"))
			.block(LONG_WAIT));
		assertThat(failure).isInstanceOf(LockAcquisitionException.class).hasMessageContaining(other);
		assertThat(redisKeyExists()).as("the key taken before the refused one was released").isFalse();
		holder.release();
		List<String> keys = ReactiveLocks
			.withLocks(this.first, List.of(LockRequest.of(other), LockRequest.of(this.key)),
					(leases) -> Mono.just(leases.stream().map(LockLease::key).toList()))
			.block(LONG_WAIT);
		assertThat(keys).containsExactly(this.key, other);
	}

	private static Flux<Integer> threeIncrements(AsyncLostUpdateCounter counter) {
		return Flux.range(0, 3).concatMap((i) -> counter.increment());
	}

	@Test
	void holdAtLeastKeepsEveryKeyUntilThatLongAfterItsGrant() {
		String other = this.key + ":other";
		StepVerifier
			.create(ReactiveLocks.withLocksMany(this.first, List.of(request(), LockRequest.of(other)),
					Duration.ofSeconds(1), (leases) -> Flux.just("done")))
			.expectNext("done")
			.verifyComplete();
		for (String key : List.of(redisKey(), "distlock:{" + other + "}")) {
			assertThat(redis.server().template().getExpire(key, TimeUnit.MILLISECONDS)).as(key).isBetween(500L, 1_000L);
		}
		// Not granted to the other instance within the minimum hold; granted after it.
		StepVerifier
			.create(ReactiveLocks.withLock(this.second, LockRequest.of(this.key).waitTime(Duration.ZERO),
					(lease) -> Mono.just("ran")))
			.expectError(LockAcquisitionException.class)
			.verify(Duration.ofSeconds(5));
		StepVerifier
			.create(ReactiveLocks.withLock(this.second, LockRequest.of(this.key).waitTime(Duration.ofSeconds(5)),
					(lease) -> Mono.just("ran")))
			.expectNext("ran")
			.verifyComplete();
	}

	@Test
	void aNegativeHoldAtLeastIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> ReactiveLocks.withLocksMany(this.first,
				List.of(request()), Duration.ofMillis(-1), (leases) -> Flux.empty()))
			.withMessageContaining("holdAtLeast must not be negative");
	}

	private LockRequest request() {
		return LockRequest.of(this.key).waitTime(LONG_WAIT);
	}

	private String redisKey() {
		return "distlock:{" + this.key + "}";
	}

	private boolean redisKeyExists() {
		return Boolean.TRUE.equals(redis.server().template().hasKey(redisKey()));
	}

}

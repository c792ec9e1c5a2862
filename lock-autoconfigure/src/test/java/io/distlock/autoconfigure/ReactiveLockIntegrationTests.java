package io.distlock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.reactivestreams.Publisher;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.distlock.annotation.DistributedLock;
import io.distlock.annotation.OnFailure;
import io.distlock.core.HeldLock;
import io.distlock.core.LockAcquisitionException;
import io.distlock.core.LockLease;
import io.distlock.core.LockLostException;
import io.distlock.core.LockRequest;
import io.distlock.reactive.ReactiveLockContext;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * {@code @DistributedLock} on methods returning {@code Mono}, {@code Flux} and
 * {@code Publisher}, on a real Redis; two application contexts stand for two instances.
 */
@Timeout(120)
class ReactiveLockIntegrationTests {

	private static final Duration LONG_WAIT = Duration.ofSeconds(30);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private ApplicationContextRunner runner() {
		return DistlockRunners.withRedis(redis.server())
			.withPropertyValues("distlock.lease-time=900ms")
			.withBean("stock", Stock.class);
	}

	@Test
	void monoMethodsExcludeEachOtherAcrossTwoInstances() {
		Counter counter = new Counter();
		runner().run((one) -> runner().run((two) -> {
			List<Mono<Integer>> calls = new ArrayList<>();
			for (int i = 0; i < 100; i++) {
				calls.add(one.getBean(Stock.class).increment(counter, "mono"));
				calls.add(two.getBean(Stock.class).increment(counter, "mono"));
			}
			Flux.merge(calls).blockLast(LONG_WAIT);
			assertThat(counter.value()).isEqualTo(200);
		}));
	}

	@Test
	void negativeControlTheSameIncrementsWithoutTheAnnotationLoseUpdates() {
		Counter counter = new Counter();
		List<Mono<Integer>> calls = new ArrayList<>();
		for (int i = 0; i < 200; i++) {
			calls.add(counter.increment());
		}
		Flux.merge(calls).blockLast(LONG_WAIT);
		assertThat(counter.value()).isLessThan(200);
	}

	@Test
	void fluxMethodsExcludeEachOtherAcrossTwoInstances() {
		Counter counter = new Counter();
		runner().run((one) -> runner().run((two) -> {
			List<Flux<Integer>> calls = new ArrayList<>();
			for (int i = 0; i < 50; i++) {
				calls.add(one.getBean(Stock.class).incrementThrice(counter, "flux"));
				calls.add(two.getBean(Stock.class).incrementThrice(counter, "flux"));
			}
			Flux.merge(calls).blockLast(LONG_WAIT);
			assertThat(counter.value()).isEqualTo(300);
		}));
	}

	@Test
	void nothingIsLockedOrCalledUntilSubscriptionAndTheLockIsHeldUntilCompletion() {
		runner().run((context) -> {
			Stock stock = context.getBean(Stock.class);
			Mono<String> call = stock.hold("held", Mono.delay(Duration.ofMillis(2_700)).thenReturn("done"));
			assertThat(stock.calls()).isZero();
			assertThat(keyExists("stock:held")).isFalse();
			StepVerifier.create(call)
				.then(() -> await().atMost(Duration.ofSeconds(5)).until(() -> keyExists("stock:held")))
				// Three leases long: only renewals keep it until the Mono completes.
				.then(() -> assertThat(otherInstanceCanTake("stock:held", Duration.ofMillis(2_000))).isFalse())
				.expectNext("done")
				.verifyComplete();
			assertThat(keyExists("stock:held")).isFalse();
			assertThat(stock.calls()).isEqualTo(1);
		});
	}

	@Test
	void cancellingReleasesTheLockAndTheNextWaiterIsGrantedAtOnce() throws Exception {
		runner().run((context) -> {
			Stock stock = context.getBean(Stock.class);
			AtomicBoolean bodyCancelled = new AtomicBoolean();
			Disposable subscription = Flux
				.from(stock.holdMany("cancel", Flux.<Long>never().doOnCancel(() -> bodyCancelled.set(true))))
				.subscribe();
			await().atMost(Duration.ofSeconds(5)).until(() -> keyExists("stock:cancel"));
			try (RedisLockRegistry other = new RedisLockRegistry(redis.server().connectionFactory())) {
				var next = other.acquireAsync(LockRequest.of("stock:cancel").waitTime(LONG_WAIT)).toCompletableFuture();
				assertThat(next).isNotDone();
				long cancelledAt = System.nanoTime();
				subscription.dispose();
				LockLease granted = next.get(5, TimeUnit.SECONDS);
				assertThat(Duration.ofNanos(System.nanoTime() - cancelledAt)).isLessThan(Duration.ofSeconds(1));
				granted.release();
			}
			assertThat(bodyCancelled).isTrue();
			assertThat(keyExists("stock:cancel")).isFalse();
		});
	}

	@Test
	void aLostLockFailsTheFluxWithLockLostException() {
		runner().run((context) -> {
			Stock stock = context.getBean(Stock.class);
			AtomicBoolean bodyCancelled = new AtomicBoolean();
			Flux<Long> call = Flux.from(stock.holdMany("lost",
					Flux.interval(Duration.ofMillis(50)).doOnCancel(() -> bodyCancelled.set(true))));
			StepVerifier.create(call)
				.expectNextCount(1)
				.then(() -> redis.server().template().delete("distlock:{stock:lost}"))
				.thenConsumeWhile((tick) -> true)
				.expectErrorSatisfies((error) -> assertThat(error).isInstanceOf(LockLostException.class)
					.hasMessageContaining("stock:lost"))
				.verify(Duration.ofSeconds(10));
			assertThat(bodyCancelled).isTrue();
		});
	}

	@Test
	void aLostLockFailsTheMonoWithLockLostException() {
		runner().run((context) -> {
			Stock stock = context.getBean(Stock.class);
			StepVerifier.create(stock.hold("lost-mono", Mono.never()))
				.then(() -> await().atMost(Duration.ofSeconds(5)).until(() -> keyExists("stock:lost-mono")))
				.then(() -> redis.server().template().delete("distlock:{stock:lost-mono}"))
				.expectError(LockLostException.class)
				.verify(Duration.ofSeconds(10));
		});
	}

	@Test
	void skipCompletesEmptyWithoutCallingTheMethod() {
		runner().run((context) -> {
			Stock stock = context.getBean(Stock.class);
			try (RedisLockRegistry other = new RedisLockRegistry(redis.server().connectionFactory());
					LockLease held = other.acquire("nightly", Duration.ZERO)) {
				StepVerifier.create(stock.nightly()).verifyComplete();
				assertThat(stock.calls()).isZero();
			}
			// Control: with the lock free, the method runs.
			StepVerifier.create(stock.nightly()).expectNext("ran").verifyComplete();
			assertThat(stock.calls()).isEqualTo(1);
		});
	}

	@Test
	void holdAtLeastKeepsAFastMonosLockWithoutBlocking() {
		runner().run((context) -> {
			Stock stock = context.getBean(Stock.class);
			StepVerifier.create(stock.reconcile()).expectNext("reconciled").verifyComplete();
			// Completed, yet the key stays until 1 s after the grant, no longer renewed.
			long ttl = redis.server().template().getExpire("distlock:{reconcile}", TimeUnit.MILLISECONDS);
			assertThat(ttl).isBetween(500L, 1_000L);
			// Skipped: a second run within the minimum hold time does not happen.
			StepVerifier.create(stock.reconcile()).verifyComplete();
			assertThat(stock.reconciled()).isEqualTo(1);
			// After it, the next run does.
			await().atMost(Duration.ofSeconds(3)).until(() -> !redis.server().template().hasKey("distlock:{reconcile}"));
			StepVerifier.create(stock.reconcile()).expectNext("reconciled").verifyComplete();
			assertThat(stock.reconciled()).isEqualTo(2);
		});
	}

	@Test
	void withoutHoldAtLeastAFastMonosLockIsReleasedAtCompletion() {
		runner().run((context) -> {
			Stock stock = context.getBean(Stock.class);
			StepVerifier.create(stock.nightly()).expectNext("ran").verifyComplete();
			assertThat(redis.server().template().hasKey("distlock:{nightly}")).isFalse();
		});
	}

	@Test
	void fallbackSubscribesToTheFallbacksPublisher() {
		runner().run((context) -> {
			Stock stock = context.getBean(Stock.class);
			try (RedisLockRegistry other = new RedisLockRegistry(redis.server().connectionFactory());
					LockLease held = other.acquire("report", Duration.ZERO)) {
				StepVerifier.create(stock.report()).expectNext("cached", "report").verifyComplete();
				assertThat(stock.calls()).isZero();
			}
			StepVerifier.create(stock.report()).expectNext("fresh").verifyComplete();
		});
	}

	@Test
	void throwFailsWithLockAcquisitionExceptionAtTheWaitTime() {
		runner().run((context) -> {
			Stock stock = context.getBean(Stock.class);
			try (RedisLockRegistry other = new RedisLockRegistry(redis.server().connectionFactory());
					LockLease held = other.acquire("export", Duration.ZERO)) {
				long start = System.nanoTime();
				Throwable failure = catchThrowable(() -> Flux.from(stock.export()).blockLast(LONG_WAIT));
				Duration took = Duration.ofNanos(System.nanoTime() - start);
				assertThat(failure).isInstanceOf(LockAcquisitionException.class).hasMessageContaining("within 300ms");
				assertThat(took).isBetween(Duration.ofMillis(300), Duration.ofMillis(2_000));
				assertThat(stock.calls()).isZero();
			}
		});
	}

	@Test
	void severalKeysAreTakenAllOrNone() {
		runner().run((context) -> {
			Stock stock = context.getBean(Stock.class);
			try (RedisLockRegistry other = new RedisLockRegistry(redis.server().connectionFactory())) {
				LockLease held = other.acquire("b:7", Duration.ZERO);
				assertThat(catchThrowable(() -> stock.transfer(7).block(LONG_WAIT)))
					.isInstanceOf(LockAcquisitionException.class);
				assertThat(keyExists("a:7")).as("the key taken before the refused one was released").isFalse();
				held.release();
				assertThat(stock.transfer(7).block(LONG_WAIT)).containsExactly("a:7", "b:7");
			}
		});
	}

	@Test
	void theLeaseInTheReactorContextCarriesTheHoldsFencingToken() {
		runner().run((context) -> {
			Stock stock = context.getBean(Stock.class);
			RedisLockRegistry registry = context.getBean(RedisLockRegistry.class);
			stock.orders().whileReserving = () -> registry.heldLocks()
				.stream()
				.filter((held) -> held.key().equals("stock:42"))
				.map(HeldLock::fencingToken)
				.findFirst()
				.orElseThrow();
			Long written = stock.reserve(42, 1).block(LONG_WAIT);
			assertThat(written).isPositive().isEqualTo(stock.orders().heldToken);
		});
	}

	private static boolean keyExists(String key) {
		return Boolean.TRUE.equals(redis.server().template().hasKey("distlock:{" + key + "}"));
	}

	private static boolean otherInstanceCanTake(String key, Duration waitTime) {
		try (RedisLockRegistry other = new RedisLockRegistry(redis.server().connectionFactory())) {
			var lease = other.tryAcquire(key, waitTime);
			lease.ifPresent(LockLease::release);
			return lease.isPresent();
		}
	}

	/**
	 * A read, a 1 ms wait on Reactor's timer and a write: overlapping increments lose updates.
	 */
	static final class Counter {

		private volatile int value;

		Mono<Integer> increment() {
			return Mono.defer(() -> {
				int read = this.value;
				return Mono.delay(Duration.ofMillis(1)).map((tick) -> {
					this.value = read + 1;
					return read;
				});
			});
		}

		int value() {
			return this.value;
		}

	}

	/**
	 * A reactive repository that writes with the fencing token it is given, and notes the token
	 * the registry reports as held at that moment.
	 */
	static final class Orders {

		volatile Supplier<Long> whileReserving = () -> 0L;

		volatile long heldToken;

		Mono<Long> reserve(long productId, int quantity, long fencingToken) {
			// Reading what the registry holds is a local call; off the event loop all the same.
			return Mono.fromCallable(() -> {
				this.heldToken = this.whileReserving.get();
				return fencingToken;
			}).subscribeOn(Schedulers.boundedElastic());
		}

	}

	public static class Stock {

		private final AtomicInteger calls = new AtomicInteger();

		private final AtomicInteger reconciled = new AtomicInteger();

		private final Orders orders = new Orders();

		public Orders orders() {
			return this.orders;
		}

		public int calls() {
			return this.calls.get();
		}

		@DistributedLock(key = "'stock:' + #id", waitTime = "30s")
		public Mono<Integer> increment(Counter counter, String id) {
			return counter.increment();
		}

		@DistributedLock(key = "'stock:' + #id", waitTime = "30s")
		public Flux<Integer> incrementThrice(Counter counter, String id) {
			return Flux.range(0, 3).concatMap((i) -> counter.increment());
		}

		@DistributedLock(key = "'stock:' + #id", waitTime = "0s")
		public Mono<String> hold(String id, Mono<String> work) {
			this.calls.incrementAndGet();
			return work;
		}

		@DistributedLock(key = "'stock:' + #id", waitTime = "0s")
		public Publisher<Long> holdMany(String id, Flux<Long> work) {
			return work;
		}

		@DistributedLock(key = "'reconcile'", waitTime = "0s", holdAtLeast = "1s", onFailure = OnFailure.SKIP)
		public Mono<String> reconcile() {
			return Mono.fromCallable(() -> {
				this.reconciled.incrementAndGet();
				return "reconciled";
			});
		}

		int reconciled() {
			return this.reconciled.get();
		}

		@DistributedLock(key = "'nightly'", waitTime = "0s", onFailure = OnFailure.SKIP)
		public Mono<String> nightly() {
			this.calls.incrementAndGet();
			return Mono.just("ran");
		}

		@DistributedLock(key = "'report'", waitTime = "0s", onFailure = OnFailure.FALLBACK, fallbackMethod = "cachedReport")
		public Flux<String> report() {
			this.calls.incrementAndGet();
			return Flux.just("fresh");
		}

		public Flux<String> cachedReport(LockAcquisitionException ex) {
			return Flux.just("cached", ex.getKey());
		}

		@DistributedLock(key = "'export'", waitTime = "300ms")
		public Mono<String> export() {
			this.calls.incrementAndGet();
			return Mono.just("exported");
		}

		@DistributedLock(keys = { "'a:' + #id", "'b:' + #id" }, waitTime = "200ms")
		public Mono<List<String>> transfer(long id) {
			return ReactiveLockContext.all().map((leases) -> leases.stream().map(LockLease::key).toList());
		}

		// tag::annotation[]
		@DistributedLock(key = "'stock:' + #productId", waitTime = "2s")
		public Mono<Long> reserve(long productId, int quantity) {
			return ReactiveLockContext.current()
				.flatMap((lease) -> this.orders.reserve(productId, quantity, lease.fencingToken()));
		}
		// end::annotation[]

	}

}

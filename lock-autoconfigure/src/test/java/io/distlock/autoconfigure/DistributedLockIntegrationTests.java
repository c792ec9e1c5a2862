package io.distlock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.event.EventListener;
import org.springframework.data.redis.core.StringRedisTemplate;

import io.distlock.annotation.DistributedLock;
import io.distlock.annotation.OnFailure;
import io.distlock.core.LockAcquisitionException;
import io.distlock.core.LockContext;
import io.distlock.core.LockKeyException;
import io.distlock.core.LockLease;
import io.distlock.core.LockLostEvent;
import io.distlock.core.LockRegistry;
import io.distlock.core.LockRequest;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.test.redis.RedisServerExtension;
import io.distlock.test.registry.LockRegistries;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * What an annotated method does at call time, on a real Redis: keys, reentrancy, failure modes,
 * asynchronous results, minimum hold times and the lease inside the method.
 */
@Timeout(60)
class DistributedLockIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockRegistries registries = LockRegistries.on(redis);

	private ApplicationContextRunner runner() {
		return DistlockRunners.withRedisAndMetrics(redis.server())
			.withPropertyValues("distlock.wait-time=200ms")
			.withBean("inventory", Inventory.class)
			.withBean("tenant", Tenant.class)
			.withBean("lostEvents", LostEvents.class);
	}

	@Test
	void holdsTheEvaluatedKeyWhileTheMethodRunsAndFreesItAfter() {
		runner().run((context) -> {
			Inventory inventory = context.getBean(Inventory.class);
			String seen = inventory.reserve(42, 1);
			assertThat(seen).isEqualTo("held=true token>0=true name=Inventory.reserve");
			assertThat(redis().hasKey("distlock:{stock:42}")).isFalse();
		});
	}

	@Test
	void keysCanUsePositionsAndBeans() {
		runner().run((context) -> {
			Inventory inventory = context.getBean(Inventory.class);
			assertThat(inventory.byPosition(7, "x")).isEqualTo("distlock:{pos:7:x}");
			assertThat(inventory.byBean(3)).isEqualTo("distlock:{acme:3}");
		});
	}

	@Test
	void anotherHolderMakesTheCallThrowWithoutRunningTheMethod() {
		runner().run((context) -> {
			Inventory inventory = context.getBean(Inventory.class);
			try (LockLease held = otherInstance(context).acquire("stock:9", Duration.ZERO)) {
				assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(() -> inventory.reserve(9, 1))
					.withMessage("Could not acquire lock 'Inventory.reserve' for key 'stock:9' within 200ms");
			}
			assertThat(inventory.calls()).isZero();
		});
	}

	@Test
	void skipReturnsNothingAndCountsAFallback() {
		runner().run((context) -> {
			Inventory inventory = context.getBean(Inventory.class);
			try (LockLease held = otherInstance(context).acquire("Inventory.nightly", Duration.ZERO)) {
				assertThat(inventory.nightly()).isEmpty();
				assertThat(inventory.nightlyVoid()).isNull();
			}
			assertThat(inventory.calls()).isZero();
			assertThat(inventory.nightly()).contains("ran");
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			// Both skipped methods share the lock name Inventory.nightly.
			assertThat(meters.get("distlock.fallback")
				.tag("lock.name", "Inventory.nightly")
				.tag("action", "skip")
				.counter()
				.count()).isEqualTo(2);
		});
	}

	@Test
	void fallbackReceivesTheArgumentsAndTheFailure() {
		runner().run((context) -> {
			Inventory inventory = context.getBean(Inventory.class);
			try (LockLease held = otherInstance(context).acquire("price:5", Duration.ZERO)) {
				assertThat(inventory.price(5)).isEqualTo("cached price of 5 (Could not acquire lock 'Inventory.price' "
						+ "for key 'price:5' within 0ms)");
			}
			assertThat(inventory.price(5)).isEqualTo("fresh price of 5");
		});
	}

	@Test
	void nestedCallsOnTheSameKeyReenter() {
		runner().run((context) -> {
			Inventory inventory = context.getBean(Inventory.class);
			assertThat(inventory.outer(11)).isEqualTo("outer(inner)");
		});
	}

	@Test
	void severalKeysAreAllHeldAndTakenInOneOrder() {
		runner().run((context) -> {
			Inventory inventory = context.getBean(Inventory.class);
			assertThat(inventory.transfer(2, 1)).containsExactly("stock:1", "stock:2");
			try (LockLease held = otherInstance(context).acquire("stock:2", Duration.ZERO)) {
				assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(() -> inventory.transfer(1, 2));
				// All or nothing: the first key was given back when the second was not acquired.
				assertThat(redis().hasKey("distlock:{stock:1}")).isFalse();
			}
		});
	}

	@Test
	void unusableKeysFailTheCallBeforeTheMethodRuns() {
		runner().run((context) -> {
			Inventory inventory = context.getBean(Inventory.class);
			assertThatExceptionOfType(LockKeyException.class).isThrownBy(() -> inventory.byName(null))
				.withMessage("Lock key '#name' of Inventory.byName(String) evaluated to null; refusing to lock on 'null'");
			assertThatExceptionOfType(LockKeyException.class).isThrownBy(() -> inventory.byName(" "))
				.withMessageContaining("evaluated to a blank key");
			assertThatExceptionOfType(LockKeyException.class).isThrownBy(() -> inventory.byObject(new Object()))
				.withMessageContaining("an object without its own toString()");
			assertThat(inventory.calls()).isZero();
		});
	}

	@Test
	void asynchronousResultsHoldTheLockUntilTheyComplete() throws Exception {
		runner().run((context) -> {
			Inventory inventory = context.getBean(Inventory.class);
			CompletableFuture<String> release = new CompletableFuture<>();
			CompletableFuture<String> first = inventory.rebuild(release);
			assertThat(redis().hasKey("distlock:{cache:rebuild}")).isTrue();
			// The same thread calls again while the first rebuild runs: it must wait, not re-enter.
			assertThatExceptionOfType(LockAcquisitionException.class)
				.isThrownBy(() -> inventory.rebuild(new CompletableFuture<>()));
			release.complete("rebuilt");
			assertThat(first.get(5, TimeUnit.SECONDS)).isEqualTo("rebuilt");
			await().atMost(Duration.ofSeconds(2)).until(() -> !redis().hasKey("distlock:{cache:rebuild}"));
		});
	}

	@Test
	void holdAtLeastKeepsAFastJobsLock() {
		runner().run((context) -> {
			Inventory inventory = context.getBean(Inventory.class);
			inventory.reconcile();
			long ttl = redis().getExpire("distlock:{Inventory.reconcile}", TimeUnit.MILLISECONDS);
			assertThat(ttl).isBetween(500L, 1_000L);
			// Skipped: a second run within the minimum hold time does not happen.
			assertThat(inventory.reconcile()).isNull();
		});
	}

	@Test
	void aFairMethodLocksThroughTheQueue() {
		runner().run((context) -> {
			Inventory inventory = context.getBean(Inventory.class);
			assertThat(inventory.fairly(8)).isEqualTo("fair:8");
			try (LockLease held = otherInstance(context).acquire(LockRequest.of("fair:9").fair(true))) {
				assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(() -> inventory.fairly(9));
			}
		});
	}

	@Test
	void aLostLockIsPublishedAsAnEventAndThrownAfterTheMethod() {
		runner().withPropertyValues("distlock.lease-time=900ms").run((context) -> {
			Inventory inventory = context.getBean(Inventory.class);
			assertThatExceptionOfType(io.distlock.core.LockLostException.class).isThrownBy(inventory::loseLock)
				.withMessageContaining("may have been changed concurrently");
			assertThat(context.getBean(LostEvents.class).keys).containsExactly("lossy");
		});
	}

	@Test
	void aMethodWithAFixedLeaseExtendsItThroughTheLockContext() {
		runner().run((context) -> {
			Inventory inventory = context.getBean(Inventory.class);
			assertThat(inventory.longImport(3)).as("the key's TTL after the method extended its 1s lease to 20s")
				.isBetween(15_000L, 20_000L);
			assertThat(redis().hasKey("distlock:{import:3}")).isFalse();
		});
	}

	private LockRegistry otherInstance(ConfigurableApplicationContext context) {
		// A second registry on the same Redis: another application instance.
		return this.registries.redis();
	}

	private static StringRedisTemplate redis() {
		return redis.server().template();
	}

	public static class Tenant {

		public String id() {
			return "acme";
		}

	}

	public static class LostEvents {

		final List<String> keys = new ArrayList<>();

		@EventListener
		public void on(LockLostEvent event) {
			this.keys.add(event.getLease().key());
		}

	}

	public static class Inventory {

		private final AtomicInteger calls = new AtomicInteger();

		public int calls() {
			return this.calls.get();
		}

		@DistributedLock(key = "'stock:' + #productId")
		public String reserve(long productId, int quantity) {
			this.calls.incrementAndGet();
			LockLease lease = LockContext.current();
			return "held=" + redis().hasKey("distlock:{stock:" + productId + "}") + " token>0="
					+ (lease.fencingToken() > 0) + " name=" + lease.name();
		}

		@DistributedLock(key = "'pos:' + #p0 + ':' + #a1")
		public String byPosition(long id, String suffix) {
			return heldKey();
		}

		@DistributedLock(key = "@tenant.id() + ':' + #id")
		public String byBean(long id) {
			return heldKey();
		}

		@DistributedLock(onFailure = OnFailure.SKIP, waitTime = "0s")
		public Optional<String> nightly() {
			this.calls.incrementAndGet();
			return Optional.of("ran");
		}

		@DistributedLock(name = "Inventory.nightly", onFailure = OnFailure.SKIP, waitTime = "0s")
		public Void nightlyVoid() {
			this.calls.incrementAndGet();
			return null;
		}

		@DistributedLock(key = "'price:' + #id", waitTime = "0s", onFailure = OnFailure.FALLBACK,
				fallbackMethod = "cachedPrice")
		public String price(long id) {
			return "fresh price of " + id;
		}

		String cachedPrice(long id, LockAcquisitionException ex) {
			return "cached price of " + id + " (" + ex.getMessage() + ")";
		}

		@DistributedLock(key = "'order:' + #id")
		public String outer(long id) {
			return "outer(" + inner(id) + ")";
		}

		@DistributedLock(key = "'order:' + #id", waitTime = "0s")
		public String inner(long id) {
			return "inner";
		}

		@DistributedLock(keys = { "'stock:' + #from", "'stock:' + #to" }, waitTime = "0s")
		public List<String> transfer(long from, long to) {
			List<String> held = new ArrayList<>();
			for (LockLease lease : LockContext.all()) {
				held.add(lease.key());
			}
			return held;
		}

		@DistributedLock(key = "#name")
		public void byName(String name) {
			this.calls.incrementAndGet();
		}

		@DistributedLock(key = "#value")
		public void byObject(Object value) {
			this.calls.incrementAndGet();
		}

		@DistributedLock(key = "'cache:rebuild'", waitTime = "100ms")
		public CompletableFuture<String> rebuild(CompletableFuture<String> work) {
			return work;
		}

		@DistributedLock(holdAtLeast = "1s", waitTime = "0s", onFailure = OnFailure.SKIP)
		public Boolean reconcile() {
			return true;
		}

		@DistributedLock(key = "'fair:' + #id", fair = true, waitTime = "100ms")
		public String fairly(long id) {
			return LockContext.current().key();
		}

		@DistributedLock(key = "'import:' + #id", leaseTime = "1s")
		public long longImport(long id) {
			assertThat(LockContext.current().extend(Duration.ofSeconds(20))).isTrue();
			return redis().getExpire("distlock:{import:" + id + "}", TimeUnit.MILLISECONDS);
		}

		@DistributedLock(key = "'lossy'")
		public void loseLock() throws InterruptedException {
			CountDownLatch lost = new CountDownLatch(1);
			LockContext.current().onLost((ex) -> lost.countDown());
			redis().delete("distlock:{lossy}");
			assertThat(lost.await(15, TimeUnit.SECONDS)).isTrue();
		}

		private static String heldKey() {
			return "distlock:{" + LockContext.current().key() + "}";
		}

	}

}

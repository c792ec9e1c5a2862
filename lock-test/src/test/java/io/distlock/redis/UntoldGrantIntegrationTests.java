package io.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.distlock.core.DistLock;
import io.distlock.core.LockLease;
import io.distlock.core.LockListener;
import io.distlock.core.LockRequest;
import io.distlock.core.WaitStrategy;
import io.distlock.engine.AbstractLockRegistry;
import io.distlock.engine.RegistrySettings;
import io.distlock.store.ForwardingLockStore;
import io.distlock.store.LockMode;
import io.distlock.store.LocalHandoffStore;
import io.distlock.store.LockStore;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A grant that arrives after its acquisition was given up (an interrupted {@code tryLock}, a
 * cancelled {@code acquireAsync}) is released in Redis, and the listener, told
 * {@code onNotAcquired}, hears nothing of it: no {@code onReleased} for a lease it was never told
 * was acquired, which would record a hold in {@code distlock.held} that nobody had. The reply to
 * the acquisition is held back by the store until the caller has given up, so the grant arrives
 * late every time. Before the fix, both tests failed on the one {@code onReleased} they saw.
 */
@Timeout(60)
class UntoldGrantIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final List<String> events = new CopyOnWriteArrayList<>();

	private final HeldAcquisitions store = new HeldAcquisitions(
			RedisLockStore.forNode(redis.server().connectionFactory(), "distlock:", Duration.ofMinutes(10)));

	private final AbstractLockRegistry registry = new AbstractLockRegistry(this.store,
			new RegistrySettings(Duration.ofSeconds(30), Duration.ofSeconds(10), WaitStrategy.PUB_SUB,
					Duration.ofMillis(100), new Recording(this.events), "untold")) {
	};

	@AfterEach
	void close() {
		this.registry.close();
	}

	@Test
	void anInterruptedTryLockWhoseGrantArrivesLateIsNeverToldReleased() throws Exception {
		String key = "untold:" + UUID.randomUUID();
		DistLock lock = this.registry.obtain(key);
		AtomicReference<Throwable> outcome = new AtomicReference<>();
		Thread waiter = new Thread(() -> {
			try {
				outcome.set(new AssertionError("acquired: " + lock.tryLock(Duration.ofSeconds(20))));
			}
			catch (InterruptedException ex) {
				outcome.set(ex);
			}
		});
		waiter.start();
		this.store.sent.get(10, TimeUnit.SECONDS);
		waiter.interrupt();
		waiter.join(10_000);
		assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
		this.store.reply.complete(null);
		awaitKeyGone(key);
		assertThat(this.events).containsExactly("acquiring " + key, "not acquired " + key);
	}

	@Test
	void aCancelledAsyncAcquisitionWhoseGrantArrivesLateIsNeverToldReleased() throws Exception {
		String key = "untold-async:" + UUID.randomUUID();
		CompletableFuture<LockLease> acquisition = this.registry
			.acquireAsync(LockRequest.of(key).waitTime(Duration.ofSeconds(20)))
			.toCompletableFuture();
		this.store.sent.get(10, TimeUnit.SECONDS);
		assertThat(acquisition.cancel(false)).isTrue();
		this.store.reply.complete(null);
		awaitKeyGone(key);
		assertThat(this.events).containsExactly("acquiring " + key, "not acquired " + key);
	}

	/**
	 * Wait until the late grant was released in Redis and its release is over, listener calls
	 * included.
	 */
	private void awaitKeyGone(String key) throws InterruptedException {
		String lockKey = "distlock:{" + key + "}";
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		assertThat(this.store.granted.join()).as("the late reply granted the lock").isTrue();
		while (Boolean.TRUE.equals(redis.server().template().hasKey(lockKey)) && System.nanoTime() < deadline) {
			Thread.sleep(10);
		}
		assertThat(redis.server().template().hasKey(lockKey)).as("the late grant is released").isFalse();
		// The release lets its gate go last, after any listener call: then it is over.
		while (this.registry.localKeyCount() > 0 && System.nanoTime() < deadline) {
			Thread.sleep(10);
		}
		assertThat(this.registry.localKeyCount()).as("the release is over").isZero();
	}

	/** Records the listener calls for one key, in order. */
	private record Recording(List<String> events) implements LockListener {

		@Override
		public void onAcquiring(String name, String key) {
			this.events.add("acquiring " + key);
		}

		@Override
		public void onAcquired(LockLease lease, Duration waited) {
			this.events.add("acquired " + lease.key());
		}

		@Override
		public void onNotAcquired(String name, String key, Duration waited, Throwable failure) {
			this.events.add("not acquired " + key);
		}

		@Override
		public void onReleased(LockLease lease, Duration held, ReleaseOutcome outcome) {
			this.events.add("released " + lease.key() + " " + outcome);
		}

		@Override
		public void onLost(LockLease lease, io.distlock.core.LockLostException reason) {
			this.events.add("lost " + lease.key());
		}

	}

	/** A store that holds back the reply to the first acquisition until the test lets it go. */
	private static final class HeldAcquisitions extends ForwardingLockStore {

		final CompletableFuture<Void> sent = new CompletableFuture<>();

		final CompletableFuture<Void> reply = new CompletableFuture<>();

		final CompletableFuture<Boolean> granted = new CompletableFuture<>();

		HeldAcquisitions(LocalHandoffStore delegate) {
			super(delegate);
		}

		@Override
		public CompletableFuture<Acquisition> tryAcquire(LockMode mode, String key, String owner, Duration leaseTime,
				Duration waitTime) {
			CompletableFuture<Acquisition> call = super.tryAcquire(mode, key, owner, leaseTime, waitTime);
			if (!this.sent.complete(null)) {
				return call;
			}
			return call.thenCombine(this.reply, (answer, ignored) -> {
				this.granted.complete(answer.acquired());
				return answer;
			});
		}

	}

}

package io.distlock.reactive;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

import io.distlock.core.LockLease;
import io.distlock.core.LockRequest;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.test.redis.RedisServerExtension;
import io.distlock.test.registry.LockRegistries;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Reactive holds disposed at any moment, while their lock is on its way, while their body runs
 * or as it completes, leave no key behind and nothing for the watchdog to renew. A competing
 * process takes the lock now and then, so that some holds wait first.
 */
@Timeout(60)
class ReactiveCancellationStormIntegrationTests {

	private static final Duration LEASE_TIME = Duration.ofSeconds(1);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockRegistries registries = LockRegistries.on(redis);

	private final ExecutorService executor = Executors.newSingleThreadExecutor();

	@AfterEach
	void close() {
		this.executor.shutdownNow();
	}

	@Test
	void holdsDisposedAtRandomMomentsLeaveNoKeyAndNothingRenewed() throws Exception {
		RedisLockRegistry registry = register();
		RedisLockRegistry competitor = register();
		String key = "reactive-storm:" + UUID.randomUUID();
		AtomicBoolean stop = new AtomicBoolean();
		Future<?> competing = this.executor.submit(() -> {
			while (!stop.get()) {
				try (LockLease lease = competitor.acquire(LockRequest.of(key).waitTime(Duration.ofSeconds(5)))) {
					LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
				}
				LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(3));
			}
			return null;
		});
		AtomicInteger bodiesStarted = new AtomicInteger();
		AtomicInteger completed = new AtomicInteger();
		int disposedEarly = 0;
		for (int i = 0; i < 300; i++) {
			Disposable hold = ReactiveLocks
				.withLock(registry, LockRequest.of(key).waitTime(Duration.ofSeconds(5)), (lease) -> {
					bodiesStarted.incrementAndGet();
					return Mono.delay(Duration.ofNanos(ThreadLocalRandom.current().nextLong(0, 2_000_000)))
						.thenReturn(1);
				})
				.subscribe((value) -> completed.incrementAndGet());
			LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(0, 4_000_000));
			if (!hold.isDisposed()) {
				disposedEarly++;
			}
			hold.dispose();
		}
		stop.set(true);
		competing.get(10, TimeUnit.SECONDS);
		System.out.println("Reactive storm: " + bodiesStarted + " bodies started, " + completed + " completed, "
				+ disposedEarly + " disposed before the end");
		assertThat(bodiesStarted.get()).as("holds whose lock was granted").isPositive();
		assertThat(disposedEarly).as("holds disposed on their way").isPositive();
		// A grant that arrived after its hold was disposed is released without waiting for anybody.
		await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
			assertThat(registry.localKeyCount()).isZero();
			assertThat(registry.heldLocks()).isEmpty();
			assertThat(redis.server().template().hasKey("distlock:{" + key + "}")).isFalse();
		});
		long scripts = redis.server().scriptCalls();
		// More than a lease: a watched grant would have been renewed several times by now.
		Thread.sleep(LEASE_TIME.toMillis() * 3 / 2);
		assertThat(redis.server().scriptCalls()).as("scripts sent once everyone stopped").isEqualTo(scripts);
		assertThat(redis.server().template().hasKey("distlock:{" + key + "}")).isFalse();
	}

	private RedisLockRegistry register() {
		return this.registries.redis((builder) -> builder.leaseTime(LEASE_TIME));
	}

}

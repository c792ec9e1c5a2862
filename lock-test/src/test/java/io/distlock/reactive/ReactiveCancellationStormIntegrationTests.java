package io.distlock.reactive;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

import io.distlock.core.LockRequest;
import io.distlock.detector.CancellationStorm;
import io.distlock.detector.CancellationStorm.Competitor;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.test.redis.RedisServerExtension;
import io.distlock.test.registry.LockRegistries;

import static org.assertj.core.api.Assertions.assertThat;

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

	@Test
	void holdsDisposedAtRandomMomentsLeaveNoKeyAndNothingRenewed() throws Exception {
		RedisLockRegistry registry = register();
		RedisLockRegistry competitor = register();
		String key = "reactive-storm:" + UUID.randomUUID();
		AtomicInteger bodiesStarted = new AtomicInteger();
		AtomicInteger completed = new AtomicInteger();
		int disposedEarly = 0;
		Competitor competing = CancellationStorm.compete(this.registries.executor(), competitor,
				LockRequest.of(key).waitTime(Duration.ofSeconds(5)));
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
		competing.stop();
		System.out.println("Reactive storm: " + bodiesStarted + " bodies started, " + completed + " completed, "
				+ disposedEarly + " disposed before the end");
		assertThat(bodiesStarted.get()).as("holds whose lock was granted").isPositive();
		assertThat(disposedEarly).as("holds disposed on their way").isPositive();
		CancellationStorm.assertNothingLeftAndNothingRenewed(redis.server(), registry, key, LEASE_TIME);
	}

	private RedisLockRegistry register() {
		return this.registries.redis((builder) -> builder.leaseTime(LEASE_TIME));
	}

}

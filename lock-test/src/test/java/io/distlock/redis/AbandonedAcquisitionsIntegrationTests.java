package io.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.distlock.core.DistLock;
import io.distlock.core.LockLease;
import io.distlock.core.LockRequest;
import io.distlock.detector.CancellationStorm;
import io.distlock.detector.CancellationStorm.Competitor;
import io.distlock.test.redis.RedisServerExtension;
import io.distlock.test.registry.LockRegistries;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Acquisitions given up at any moment, by an interrupt or a cancellation, never leave a key
 * behind that the watchdog keeps renewing: once every caller has stopped, the key is gone, the
 * registry holds nothing and no script reaches Redis any more. The moments are not chosen: a
 * storm of interrupts and cancellations lands wherever the calls happen to be, before the
 * request, while the reply is on its way, between attempts and during the release.
 */
@Timeout(60)
class AbandonedAcquisitionsIntegrationTests {

	private static final Duration LEASE_TIME = Duration.ofSeconds(1);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockRegistries registries = LockRegistries.on(redis);

	@Test
	void anInterruptStormOnAcquisitionsAndReleasesLeavesNoKeyAndNothingRenewed() throws Exception {
		RedisLockRegistry registry = register();
		String key = this.registries.randomKey();
		AtomicBoolean stop = new AtomicBoolean();
		AtomicInteger granted = new AtomicInteger();
		AtomicInteger interrupted = new AtomicInteger();
		List<Throwable> failures = new CopyOnWriteArrayList<>();
		List<Thread> workers = new ArrayList<>();
		for (int w = 0; w < 4; w++) {
			int kind = w % 3;
			Thread worker = new Thread(() -> {
				while (!stop.get()) {
					// Clear the flag so that the next interrupt lands somewhere in the calls below.
					Thread.interrupted();
					DistLock lock = registry.obtain(key);
					boolean locked;
					try {
						locked = switch (kind) {
							case 0 -> {
								lock.lockInterruptibly();
								yield true;
							}
							case 1 -> lock.tryLock(Duration.ofMillis(50));
							default -> lock.tryLock();
						};
					}
					catch (InterruptedException ex) {
						interrupted.incrementAndGet();
						continue;
					}
					catch (RuntimeException ex) {
						failures.add(ex);
						continue;
					}
					if (locked) {
						granted.incrementAndGet();
						try {
							// Released whatever the interrupt flag says.
							lock.unlock();
						}
						catch (RuntimeException ex) {
							failures.add(ex);
						}
					}
				}
			}, "interrupted-worker-" + w);
			workers.add(worker);
			worker.start();
		}
		long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
		while (System.nanoTime() < until) {
			for (Thread worker : workers) {
				worker.interrupt();
				LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(0, 200_000));
			}
		}
		stop.set(true);
		for (Thread worker : workers) {
			worker.interrupt();
			worker.join(10_000);
			assertThat(worker.isAlive()).isFalse();
		}
		assertThat(failures).isEmpty();
		assertThat(granted.get()).as("grants during the storm").isPositive();
		assertThat(interrupted.get()).as("acquisitions cut short by an interrupt").isPositive();
		CancellationStorm.assertNothingLeftAndNothingRenewed(redis.server(), registry, key, LEASE_TIME);
	}

	@Test
	void cancellingAsynchronousAcquisitionsAtRandomMomentsLeavesNoKeyAndNothingRenewed() throws Exception {
		RedisLockRegistry registry = register();
		RedisLockRegistry competitor = register();
		int completedInAll = 0;
		for (boolean fair : new boolean[] { false, true }) {
			String key = this.registries.randomKey();
			int cancelled = 0;
			int completed = 0;
			// Another process takes the lock now and then, so that some acquisitions wait.
			Competitor competing = CancellationStorm.compete(this.registries.executor(), competitor,
					LockRequest.of(key).fair(fair).waitTime(Duration.ofSeconds(5)));
			for (int i = 0; i < 300; i++) {
				CompletableFuture<LockLease> acquisition = registry
					.acquireAsync(LockRequest.of(key).fair(fair).waitTime(Duration.ofSeconds(5)))
					.toCompletableFuture();
				LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(0, 4_000_000));
				if (acquisition.cancel(false)) {
					cancelled++;
				}
				else {
					completed++;
					acquisition.join().release();
				}
			}
			competing.stop();
			System.out.println("fair=" + fair + ": " + cancelled + " cancelled, " + completed + " granted first");
			assertThat(cancelled).as("fair=" + fair + ": acquisitions cancelled on their way").isPositive();
			completedInAll += completed;
			assertThat(competitor.localKeyCount()).isZero();
			CancellationStorm.assertNothingLeftAndNothingRenewed(redis.server(), registry, key, LEASE_TIME);
			await().atMost(Duration.ofSeconds(5))
				.untilAsserted(() -> assertThat(redis.server().template().hasKey(lockKey(key) + ":queue"))
					.as("fair=" + fair + ": no place left in the queue").isFalse());
		}
		assertThat(completedInAll).as("acquisitions granted before the cancel").isPositive();
	}

	@Test
	void cancellingLockedTasksAtRandomMomentsLeavesNoKeyAndNothingRenewed() throws Exception {
		RedisLockRegistry registry = register();
		RedisLockRegistry competitor = register();
		String key = this.registries.randomKey();
		AtomicInteger tasksStarted = new AtomicInteger();
		int cancelled = 0;
		Competitor competing = CancellationStorm.compete(this.registries.executor(), competitor,
				LockRequest.of(key).waitTime(Duration.ofSeconds(5)));
		for (int i = 0; i < 300; i++) {
			CompletableFuture<Integer> run = registry
				.executeLockedAsync(LockRequest.of(key).waitTime(Duration.ofSeconds(5)), (lease) -> {
					tasksStarted.incrementAndGet();
					return CompletableFuture.supplyAsync(() -> 1, CompletableFuture.delayedExecutor(
							ThreadLocalRandom.current().nextLong(0, 2_000), TimeUnit.MICROSECONDS));
				})
				.toCompletableFuture();
			LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(0, 4_000_000));
			if (run.cancel(false)) {
				cancelled++;
			}
		}
		competing.stop();
		assertThat(tasksStarted.get()).as("tasks whose lock was granted").isPositive();
		assertThat(cancelled).as("runs cancelled on their way").isPositive();
		CancellationStorm.assertNothingLeftAndNothingRenewed(redis.server(), registry, key, LEASE_TIME);
	}

	private RedisLockRegistry register() {
		return this.registries.redis((builder) -> builder.leaseTime(LEASE_TIME));
	}

	private static String lockKey(String key) {
		return "distlock:{" + key + "}";
	}

}

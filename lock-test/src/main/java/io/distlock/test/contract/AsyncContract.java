package io.distlock.test.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.distlock.core.LockAcquisitionException;
import io.distlock.core.LockLease;
import io.distlock.core.LockLostException;
import io.distlock.core.LockRequest;
import io.distlock.engine.AbstractLockRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The asynchronous API: holds owned by their lease, waiters that are not threads. Granted one at a
 * time (checked by an {@link ExclusionProbe}, with its negative control), failed at the wait time,
 * cancelled without a trace, and {@code executeLockedAsync} holding until its stage completes or
 * the lock is lost.
 */
interface AsyncContract extends LockRegistryContract {

	@Test
	default void acquireAsyncHoldsTheKeyAndReleaseAsyncFreesIt() throws Exception {
		AbstractLockRegistry registry = registry();
		String key = randomKey();
		LockLease lease = registry.acquireAsync(LockRequest.of(key)).toCompletableFuture().get(5, TimeUnit.SECONDS);
		assertThat(lease.isValid()).isTrue();
		assertThat(isHeldInStore(registry, key)).isTrue();
		assertThat(registry.acquireAsync(LockRequest.of(key).waitTime(Duration.ofMillis(100)))
			.toCompletableFuture()).as("owned by its lease: not re-entered by a second acquisition")
			.failsWithin(Duration.ofSeconds(5))
			.withThrowableOfType(ExecutionException.class)
			.withCauseInstanceOf(LockAcquisitionException.class);
		lease.releaseAsync().get(5, TimeUnit.SECONDS);
		assertThat(lease.isValid()).isFalse();
		assertThat(isHeldInStore(registry, key)).isFalse();
		assertThat(registry.localKeyCount()).isZero();
	}

	@Test
	default void acquireAsyncFailsWithLockAcquisitionExceptionAtItsWaitTime() throws Exception {
		AbstractLockRegistry first = registry();
		AbstractLockRegistry second = registry();
		String key = randomKey();
		try (LockLease lease = first.acquire(key, Duration.ZERO)) {
			long start = System.nanoTime();
			CompletableFuture<LockLease> waiting = second
				.acquireAsync(LockRequest.of(key).waitTime(Duration.ofMillis(300)))
				.toCompletableFuture();
			assertThat(waiting).isNotDone();
			assertThat(waiting).failsWithin(Duration.ofSeconds(5))
				.withThrowableOfType(ExecutionException.class)
				.havingCause()
				.isInstanceOf(LockAcquisitionException.class)
				.withMessage("Could not acquire lock for key '" + key + "' within 300ms");
			assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isBetween(300L, 2_000L);
		}
		assertThat(second.localKeyCount()).isZero();
	}

	@Test
	default void asyncWaitersAreGrantedOneAtATimeAndAllInTurn() throws Exception {
		int waiters = 200;
		AbstractLockRegistry first = registry();
		AbstractLockRegistry second = registry();
		String key = randomKey();
		ExclusionProbe probe = new ExclusionProbe();
		List<CompletableFuture<Integer>> results = new ArrayList<>();
		for (int i = 0; i < waiters; i++) {
			AbstractLockRegistry registry = (i % 2 == 0) ? first : second;
			results.add(registry
				.executeLockedAsync(LockRequest.of(key).waitTime(Duration.ofSeconds(60)), (lease) -> probe.visit())
				.toCompletableFuture());
		}
		CompletableFuture.allOf(results.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
		assertThat(probe.counter()).as("a non-atomic counter, read and written across an asynchronous gap")
			.isEqualTo(waiters);
		assertThat(probe.mostInside()).isEqualTo(1);
		assertThat(isHeldInStore(first, key)).isFalse();
		assertThat(first.localKeyCount() + second.localKeyCount()).isZero();
	}

	@Test
	default void theExclusionProbeSeesOverlapsWithoutTheLock() throws Exception {
		// Negative control for the probe above: the same visits without a lock overlap.
		ExclusionProbe probe = new ExclusionProbe();
		List<CompletableFuture<Integer>> results = new ArrayList<>();
		for (int i = 0; i < 200; i++) {
			results.add(probe.visit());
		}
		CompletableFuture.allOf(results.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
		assertThat(probe.mostInside()).isGreaterThan(1);
		assertThat(probe.counter()).isLessThan(200);
	}

	@Test
	default void cancellingAnAsyncAcquisitionGivesUpItsPlaceAndLeavesNoKey() throws Exception {
		AbstractLockRegistry holder = registry();
		AbstractLockRegistry waiters = registry();
		AbstractLockRegistry late = registry();
		for (boolean fair : offersFairAndReadWriteLocks() ? new boolean[] { false, true } : new boolean[] { false }) {
			String key = randomKey();
			LockLease held = holder.acquire(LockRequest.of(key).fair(fair));
			CompletableFuture<LockLease> waiting = waiters
				.acquireAsync(LockRequest.of(key).fair(fair).waitTime(Duration.ofSeconds(30)))
				.toCompletableFuture();
			Thread.sleep(300);
			assertThat(waiting.cancel(false)).isTrue();
			held.release();
			// Granted at once: the cancelled waiter kept no place ahead of it.
			LockLease next = late.acquire(LockRequest.of(key).fair(fair).waitTime(Duration.ofSeconds(2)));
			next.release();
			assertThat(isHeldInStore(late, key)).as("fair=" + fair).isFalse();
			await().atMost(Duration.ofSeconds(5)).until(() -> waiters.localKeyCount() == 0);
		}
	}

	@Test
	default void executeLockedAsyncHoldsUntilTheStageCompletes() throws Exception {
		AbstractLockRegistry registry = registry();
		AbstractLockRegistry other = registry();
		String key = randomKey();
		CompletableFuture<String> work = new CompletableFuture<>();
		CompletableFuture<String> result = registry
			.executeLockedAsync(LockRequest.of(key), (lease) -> work.thenApply((value) -> value + lease.key()))
			.toCompletableFuture();
		await().atMost(Duration.ofSeconds(5)).until(() -> isHeldInStore(registry, key));
		assertThat(other.tryAcquire(key, Duration.ZERO)).isEmpty();
		assertThat(result).isNotDone();
		work.complete("done:");
		assertThat(result.get(5, TimeUnit.SECONDS)).isEqualTo("done:" + key);
		assertThat(isHeldInStore(registry, key)).isFalse();

		CompletableFuture<String> failing = new CompletableFuture<>();
		CompletableFuture<String> failed = registry.executeLockedAsync(LockRequest.of(key), (lease) -> failing)
			.toCompletableFuture();
		await().atMost(Duration.ofSeconds(5)).until(() -> isHeldInStore(registry, key));
		IllegalStateException failure = new IllegalStateException("task failed");
		failing.completeExceptionally(failure);
		assertThat(failed).failsWithin(Duration.ofSeconds(5))
			.withThrowableOfType(ExecutionException.class)
			.withCause(failure);
		assertThat(isHeldInStore(registry, key)).isFalse();
		assertThat(registry.localKeyCount()).isZero();
	}

	@Test
	default void cancellingExecuteLockedAsyncCancelsTheTaskAndReleases() throws Exception {
		AbstractLockRegistry registry = registry();
		String key = randomKey();
		CompletableFuture<String> work = new CompletableFuture<>();
		CompletableFuture<String> result = registry.executeLockedAsync(LockRequest.of(key), (lease) -> work)
			.toCompletableFuture();
		await().atMost(Duration.ofSeconds(5)).until(() -> isHeldInStore(registry, key));
		result.cancel(false);
		assertThat(work).isCancelled();
		await().atMost(Duration.ofSeconds(5)).until(() -> !isHeldInStore(registry, key));
		assertThat(registry.localKeyCount()).isZero();
	}

	@Test
	default void executeLockedAsyncFailsWithLockLostExceptionAsSoonAsTheLockIsLost() throws Exception {
		AbstractLockRegistry registry = registry(Duration.ofMillis(900));
		String key = randomKey();
		CompletableFuture<String> work = new CompletableFuture<>();
		CompletableFuture<String> result = registry.executeLockedAsync(LockRequest.of(key), (lease) -> work)
			.toCompletableFuture();
		await().atMost(Duration.ofSeconds(5)).until(() -> isHeldInStore(registry, key));
		loseInStore(registry, key);
		assertThat(result).failsWithin(Duration.ofSeconds(5))
			.withThrowableOfType(ExecutionException.class)
			.withCauseInstanceOf(LockLostException.class);
		assertThat(work).as("the task is told to stop").isCancelled();
		await().atMost(Duration.ofSeconds(5)).until(() -> registry.localKeyCount() == 0);
	}

}

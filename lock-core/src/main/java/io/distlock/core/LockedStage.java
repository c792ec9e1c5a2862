package io.distlock.core;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * Holds a lock for the life of an asynchronous task: what
 * {@link LockRegistry#executeLockedAsync} does over any registry's
 * {@link LockRegistry#acquireAsync}.
 */
final class LockedStage {

	private LockedStage() {
	}

	static <T> CompletableFuture<T> run(CompletionStage<LockLease> acquisition,
			Function<? super LockLease, ? extends CompletionStage<T>> task) {
		CompletableFuture<LockLease> acquiring = acquisition.toCompletableFuture();
		CompletableFuture<T> result = new CompletableFuture<>();
		result.whenComplete((value, failure) -> {
			if (result.isCancelled()) {
				// Gives up the place in line; a lease already granted is released below.
				acquiring.cancel(false);
			}
		});
		acquiring.whenComplete((lease, failure) -> {
			if (failure != null) {
				result.completeExceptionally(unwrap(failure));
				return;
			}
			if (result.isDone()) {
				lease.releaseAsync();
				return;
			}
			CompletableFuture<T> running;
			try {
				running = task.apply(lease).toCompletableFuture();
			}
			catch (Throwable ex) {
				running = CompletableFuture.failedFuture(ex);
			}
			CompletableFuture<T> work = running;
			AtomicReference<LockLostException> lostWhileRunning = new AtomicReference<>();
			lease.onLost((lost) -> {
				// Stop the task first, so that whoever sees the failure sees it stopped.
				lostWhileRunning.set(lost);
				work.cancel(false);
				result.completeExceptionally(lost);
			});
			result.whenComplete((value, ignored) -> {
				if (result.isCancelled()) {
					work.cancel(false);
				}
			});
			work.whenComplete((value, error) -> lease.releaseAsync().whenComplete((released, releaseFailure) -> {
				Throwable lost = (lostWhileRunning.get() != null) ? lostWhileRunning.get()
						: (releaseFailure != null) ? unwrap(releaseFailure) : null;
				if (error != null && lostWhileRunning.get() == null) {
					Throwable cause = unwrap(error);
					if (lost != null && lost != cause) {
						cause.addSuppressed(lost);
					}
					result.completeExceptionally(cause);
				}
				else if (lost != null) {
					result.completeExceptionally(lost);
				}
				else {
					result.complete(value);
				}
			}));
		});
		return result;
	}

	private static Throwable unwrap(Throwable failure) {
		Throwable cause = failure;
		while ((cause instanceof CompletionException || cause instanceof ExecutionException)
				&& cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause;
	}

}

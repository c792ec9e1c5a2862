package io.distlock.core;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Holds a lock for the life of an asynchronous task: what
 * {@link LockRegistry#executeLockedAsync} does over any registry's
 * {@link LockRegistry#acquireAsync}.
 * <p>
 * The task runs as a dependent of the acquisition, where the registry places its dependents
 * (never on the driver's thread for distlock's registries). The result is made by the
 * acquisition's own {@code newIncompleteFuture()}, so its dependents are placed the same way,
 * and this class's own bookkeeping (a cancellation, the release's outcome) is hooked with
 * {@code whenDone}, which runs where the future completes: no thread hand-off for what is not
 * the caller's code.
 */
final class LockedStage {

	private LockedStage() {
	}

	static <T> CompletableFuture<T> run(CompletionStage<LockLease> acquisition,
			Function<? super LockLease, ? extends CompletionStage<T>> task) {
		CompletableFuture<LockLease> acquiring = acquisition.toCompletableFuture();
		CompletableFuture<T> result = acquiring.newIncompleteFuture();
		whenDone(result, (ignored) -> {
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
			whenDone(result, (ignored) -> {
				if (result.isCancelled()) {
					work.cancel(false);
				}
			});
			work.whenComplete((value, error) -> whenDone(lease.releaseAsync(), (releaseFailure) -> {
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

	/**
	 * Run a hook of this class's own where the future completes, with its failure or
	 * {@code null}: through a direct executor, since a registry's future may hand the dependents
	 * of its plain stage methods to an executor of its own. Nothing but this class's
	 * bookkeeping runs there, so it costs no thread hand-off.
	 */
	private static void whenDone(CompletableFuture<?> future, Consumer<Throwable> hook) {
		future.whenCompleteAsync((done, failure) -> hook.accept(failure), Runnable::run);
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

package io.distlock.engine;

import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.LockSupport;

/**
 * A blocking caller as an {@link Executor}: what the store's reply leads to (the end of a
 * release, its listener call) runs on the thread that waits for it, which the reply wakes once,
 * as completing a future would, instead of on the driver's thread that carries the reply. A task
 * that arrives after the caller stopped waiting goes where {@link Continuations} places the
 * hold's continuations, asked only then: a reply in time never needs it.
 */
final class WaitingCaller implements Executor {

	private final Thread caller = Thread.currentThread();

	private final Continuations continuations;

	private final Executor executor;

	private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();

	private volatile boolean left;

	/**
	 * Create the executor of the calling thread, which must then {@link #await} on it.
	 * @param continuations what places tasks that arrive once the caller has stopped waiting
	 * @param executor the hold's executor, or {@code null} for the default
	 */
	WaitingCaller(Continuations continuations, Executor executor) {
		this.continuations = continuations;
		this.executor = executor;
	}

	@Override
	public void execute(Runnable task) {
		this.tasks.add(task);
		if (this.left) {
			// The caller may have drained the queue before this task was in it.
			drainToFallback();
		}
		else {
			LockSupport.unpark(this.caller);
		}
	}

	/**
	 * Run the tasks given to this executor until the future completes, at most the given time.
	 * An interrupt does not end the wait (the caller must learn the outcome); it is kept in the
	 * thread's flag. Tasks still queued or arriving later are placed as the hold's continuations are.
	 * @return the future's value
	 * @throws RuntimeException the future's failure, or a
	 * {@link StoreCalls.StoreTimeoutException} once the bound has passed
	 */
	<T> T await(CompletableFuture<T> future, Duration bound) {
		boolean interrupted = false;
		long deadline = System.nanoTime() + bound.toNanos();
		future.whenComplete((value, failure) -> LockSupport.unpark(this.caller));
		try {
			while (true) {
				for (Runnable task = this.tasks.poll(); task != null; task = this.tasks.poll()) {
					task.run();
				}
				if (future.isDone()) {
					return valueOf(future);
				}
				long left = deadline - System.nanoTime();
				if (left <= 0) {
					throw new StoreCalls.StoreTimeoutException(bound);
				}
				LockSupport.parkNanos(this, left);
				if (Thread.interrupted()) {
					interrupted = true;
				}
			}
		}
		finally {
			this.left = true;
			drainToFallback();
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private static <T> T valueOf(CompletableFuture<T> done) {
		try {
			return done.join();
		}
		catch (CompletionException ex) {
			throw StoreCalls.asRuntime(ex);
		}
	}

	private void drainToFallback() {
		for (Runnable task = this.tasks.poll(); task != null; task = this.tasks.poll()) {
			this.continuations.run(this.executor, task);
		}
	}

}

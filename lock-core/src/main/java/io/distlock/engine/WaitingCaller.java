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
 * that arrives after the caller stopped waiting goes to the fallback.
 */
final class WaitingCaller implements Executor {

	private final Thread caller = Thread.currentThread();

	private final Executor fallback;

	private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();

	private volatile boolean left;

	/**
	 * Create the executor of the calling thread, which must then {@link #await} on it.
	 * @param fallback where tasks go once the caller has stopped waiting
	 */
	WaitingCaller(Executor fallback) {
		this.fallback = fallback;
	}

	@Override
	public void execute(Runnable task) {
		this.tasks.add(task);
		if (this.left) {
			// The caller may have drained the queue before this task was in it.
			drainTo(this.fallback);
		}
		else {
			LockSupport.unpark(this.caller);
		}
	}

	/**
	 * Run the tasks given to this executor until the future completes, at most the given time.
	 * An interrupt does not end the wait (the caller must learn the outcome); it is kept in the
	 * thread's flag. Tasks still queued or arriving later go to the fallback.
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
			drainTo(this.fallback);
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

	private void drainTo(Executor executor) {
		for (Runnable task = this.tasks.poll(); task != null; task = this.tasks.poll()) {
			executor.execute(task);
		}
	}

}

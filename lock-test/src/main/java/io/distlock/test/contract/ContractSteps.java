package io.distlock.test.contract;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;

import io.distlock.core.DistLock;

/**
 * Steps that several subjects of the contract take: a try-and-unlock, and a task on a thread of
 * its own, each bounded.
 */
final class ContractSteps {

	private ContractSteps() {
	}

	/** Run on a thread of its own: a pooled thread may be one that holds the lock already. */
	static <T> T onNewThread(Callable<T> task) throws Exception {
		FutureTask<T> future = new FutureTask<>(task);
		new Thread(future).start();
		return future.get(30, TimeUnit.SECONDS);
	}

	static boolean tryAndUnlock(DistLock lock) throws InterruptedException {
		return tryAndUnlock(lock, Duration.ZERO);
	}

	static boolean tryAndUnlock(DistLock lock, Duration waitTime) throws InterruptedException {
		if (lock.tryLock(waitTime)) {
			lock.unlock();
			return true;
		}
		return false;
	}

	/**
	 * Run one step of a holder on its thread, bounded so that a step that hangs fails the test
	 * instead of hanging it (the bound is far beyond any step's own wait).
	 */
	static <T> T onHolder(ExecutorService holder, Callable<T> step) throws Exception {
		return holder.submit(step).get(10, TimeUnit.SECONDS);
	}

	static void runOnHolder(ExecutorService holder, Runnable step) throws Exception {
		holder.submit(step).get(10, TimeUnit.SECONDS);
	}

}

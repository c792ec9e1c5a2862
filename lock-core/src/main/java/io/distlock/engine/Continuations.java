package io.distlock.engine;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.distlock.store.LockStore;

/**
 * Where code that is not the engine's continues: never on the store's I/O threads (the Redis
 * driver's event loops) nor on the engine's own threads (its timer, watchdog and subscriber).
 * <p>
 * Those threads complete store calls and change the engine's bookkeeping. Anything after that
 * which may run a user's code (completing a future a user waits on, a listener, an
 * {@code onLost} callback, the next asynchronous holder's continuation) is placed here: it runs
 * at once when the current thread is anybody else's, and otherwise on the hold's executor (the
 * one its request named, or this registry's default). One blocking call in user code on the
 * driver's event loop would otherwise stop every Redis command of the application on that
 * connection, the engine's renewals included.
 */
final class Continuations {

	private static final Log logger = LogFactory.getLog(Continuations.class);

	private static final AtomicInteger registryCount = new AtomicInteger();

	private final LockStore store;

	private final boolean listenerNonBlocking;

	private final ExecutorService pool = newPool();

	private final Executor defaultPlacing = (task) -> run(null, task);

	/**
	 * Create the placement of one registry.
	 * @param store the store, which names its own threads (see {@link LockStore#isIoThread(Thread)})
	 * @param listenerNonBlocking whether the registry's listener may run on those threads (see
	 * {@link io.distlock.core.LockListener#isNonBlocking()})
	 */
	Continuations(LockStore store, boolean listenerNonBlocking) {
		this.store = store;
		this.listenerNonBlocking = listenerNonBlocking;
	}

	/**
	 * Return the registry's own pool, where a hold's continuations go unless its request names
	 * an executor: a fork/join pool of as many threads as the machine has cores (two at least),
	 * in FIFO order. A
	 * continuation that waits for another one's future ({@code join}, {@code get}) makes the pool
	 * add a thread while it waits, so holders that wait for each other never starve it; one that
	 * blocks on I/O holds its thread until the I/O ends.
	 */
	private static ExecutorService newPool() {
		String prefix = "distlock-async-" + registryCount.incrementAndGet() + "-";
		AtomicInteger count = new AtomicInteger();
		ForkJoinPool.ForkJoinWorkerThreadFactory threads = (pool) -> {
			ForkJoinWorkerThread thread = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(pool);
			thread.setName(prefix + count.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		};
		return new ForkJoinPool(Math.max(2, Runtime.getRuntime().availableProcessors()), threads, null, true);
	}

	/**
	 * Return whether the calling thread may run a user's code: it is neither the store's nor
	 * the engine's.
	 * @return whether code may continue here
	 */
	boolean mayRunUserCode() {
		Thread current = Thread.currentThread();
		return !(current instanceof EngineThread) && !this.store.isIoThread(current);
	}

	/**
	 * Run a continuation here if this thread may run user code, otherwise on the executor.
	 * @param executor the hold's executor, or {@code null} for the default
	 * @param continuation what to run
	 */
	void run(Executor executor, Runnable continuation) {
		if (mayRunUserCode()) {
			continuation.run();
		}
		else {
			dispatch(executor, continuation);
		}
	}

	/**
	 * Return an executor that runs a task at once where {@link #run} would, and otherwise on
	 * the given executor.
	 * @param executor the hold's executor, or {@code null} for the default
	 * @return the placing executor
	 */
	Executor placing(Executor executor) {
		// One per registry for the default: a waiting acquisition keeps it, once per future.
		return (executor != null) ? (task) -> run(executor, task) : this.defaultPlacing;
	}

	/**
	 * Return where the engine finishes a step whose only code that is not the engine's is the
	 * listener's: at once, wherever it is, if the listener may run on any thread; otherwise where
	 * {@link #placing} puts it. What the user's own code waits for goes out through a
	 * {@link PlacedFuture}, which places it either way.
	 * @param executor the hold's executor, or {@code null} for the default
	 * @return the executor for such a step
	 */
	Executor forListener(Executor executor) {
		return this.listenerNonBlocking ? Runnable::run : placing(executor);
	}

	/**
	 * Return a future for user code to wait on, which the engine may complete on any thread:
	 * its dependents are placed.
	 * @param executor the hold's executor, or {@code null} for the default
	 * @return the future
	 */
	<T> PlacedFuture<T> newFuture(Executor executor) {
		return new PlacedFuture<>(placing(executor));
	}

	/**
	 * Return a future that completes as the given one, whose dependents are placed.
	 * @param source a future the engine completes, anywhere
	 * @param executor the hold's executor, or {@code null} for the default
	 * @return the placed future
	 */
	<T> CompletableFuture<T> handOut(CompletableFuture<T> source, Executor executor) {
		PlacedFuture<T> out = newFuture(executor);
		out.completeFrom(source);
		return out;
	}

	/**
	 * Run a continuation on the executor, or, once it refuses (the registry or the caller's
	 * executor shut down), on a thread of its own: a continuation that never runs would leave
	 * its caller waiting for ever, and running it here is what this class exists to prevent.
	 */
	private void dispatch(Executor executor, Runnable continuation) {
		try {
			((executor != null) ? executor : this.pool).execute(continuation);
		}
		catch (RejectedExecutionException ex) {
			logger.debug("Executor refused a lock continuation; running it on a thread of its own", ex);
			Thread thread = new Thread(continuation, "distlock-continuation");
			thread.setDaemon(true);
			thread.start();
		}
	}

	/**
	 * Stop the registry's own pool once the continuations queued on it have run; an executor
	 * a request named is the application's to stop.
	 */
	void close() {
		this.pool.shutdown();
	}

	/**
	 * Return a factory of the engine's own daemon threads: threads on which no user code runs.
	 * @param name the name of every thread it makes
	 * @return the factory
	 */
	static ThreadFactory engineThreads(String name) {
		return (runnable) -> {
			Thread thread = new EngineThread(runnable, name);
			thread.setDaemon(true);
			return thread;
		};
	}

	/** A thread of the engine's own, recognised by its type rather than its name. */
	private static final class EngineThread extends Thread {

		EngineThread(Runnable runnable, String name) {
			super(runnable, name);
		}

	}

}

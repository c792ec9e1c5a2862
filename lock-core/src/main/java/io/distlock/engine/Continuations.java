package io.distlock.engine;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;

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
 * connection, the engine's renewals included. The futures the engine hands to user code are
 * {@link PlacedFuture}s, which place their dependents here.
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
	 * an executor: a FIFO fork/join pool of a thread per core (two at least). A continuation that
	 * waits for another one's future ({@code join}, {@code get}) makes the pool add a thread while
	 * it waits, so holders that wait for each other never starve it; one that blocks on I/O holds
	 * its thread until the I/O ends.
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

	/** Return whether the calling thread may run a user's code: it is neither the store's nor the engine's. */
	boolean mayRunUserCode() {
		Thread current = Thread.currentThread();
		return !(current instanceof EngineThread) && !this.store.isIoThread(current);
	}

	/**
	 * Run a continuation here if this thread may run user code, otherwise on the hold's executor
	 * ({@code null} for the default).
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
	 * the hold's executor ({@code null} for the default).
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

	/** Return a future for user code, which the engine may complete anywhere: its dependents are placed. */
	<T> PlacedFuture<T> newFuture(Executor executor) {
		return new PlacedFuture<>(placing(executor));
	}

	/** Return a future that completes as the given one of the engine's, whose dependents are placed. */
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

	/**
	 * A future handed to user code whose dependent stages never run on the store's or the engine's
	 * threads. The engine completes it wherever the outcome is known, the driver's event loop
	 * included: a caller blocked in {@code get} or {@code join} is woken there as by any future, at
	 * no extra cost. Every dependent stage, on the other hand, runs through the placing executor
	 * (see {@link Continuations#placing}): at once on any other thread, and on the hold's executor
	 * when the completing thread is the store's or the engine's. Stages derived from it place their
	 * own dependents the same way.
	 * <p>
	 * The non-asynchronous methods are the ones overridden: the {@code *Async} ones already run
	 * where they are told to.
	 */
	static final class PlacedFuture<T> extends CompletableFuture<T> {

		private final Executor placing;

		PlacedFuture(Executor placing) {
			this.placing = placing;
		}

		/**
		 * Register a dependent of the engine's own, which runs where the future completes.
		 */
		void whenCompleteHere(BiConsumer<? super T, ? super Throwable> action) {
			super.whenComplete(action);
		}

		/**
		 * Complete as the given future of the engine's does, where it completes.
		 */
		void completeFrom(CompletableFuture<? extends T> source) {
			source.whenComplete((value, failure) -> {
				if (failure != null) {
					completeExceptionally(StoreCalls.unwrap(failure));
				}
				else {
					complete(value);
				}
			});
		}

		@Override
		public <U> CompletableFuture<U> newIncompleteFuture() {
			return new PlacedFuture<>(this.placing);
		}

		@Override
		public <U> CompletableFuture<U> thenApply(Function<? super T, ? extends U> fn) {
			return thenApplyAsync(fn, this.placing);
		}

		@Override
		public CompletableFuture<Void> thenAccept(Consumer<? super T> action) {
			return thenAcceptAsync(action, this.placing);
		}

		@Override
		public CompletableFuture<Void> thenRun(Runnable action) {
			return thenRunAsync(action, this.placing);
		}

		@Override
		public <U, V> CompletableFuture<V> thenCombine(CompletionStage<? extends U> other,
				BiFunction<? super T, ? super U, ? extends V> fn) {
			return thenCombineAsync(other, fn, this.placing);
		}

		@Override
		public <U> CompletableFuture<Void> thenAcceptBoth(CompletionStage<? extends U> other,
				BiConsumer<? super T, ? super U> action) {
			return thenAcceptBothAsync(other, action, this.placing);
		}

		@Override
		public CompletableFuture<Void> runAfterBoth(CompletionStage<?> other, Runnable action) {
			return runAfterBothAsync(other, action, this.placing);
		}

		@Override
		public <U> CompletableFuture<U> applyToEither(CompletionStage<? extends T> other, Function<? super T, U> fn) {
			return applyToEitherAsync(other, fn, this.placing);
		}

		@Override
		public CompletableFuture<Void> acceptEither(CompletionStage<? extends T> other, Consumer<? super T> action) {
			return acceptEitherAsync(other, action, this.placing);
		}

		@Override
		public CompletableFuture<Void> runAfterEither(CompletionStage<?> other, Runnable action) {
			return runAfterEitherAsync(other, action, this.placing);
		}

		@Override
		public <U> CompletableFuture<U> thenCompose(Function<? super T, ? extends CompletionStage<U>> fn) {
			return thenComposeAsync(fn, this.placing);
		}

		@Override
		public <U> CompletableFuture<U> handle(BiFunction<? super T, Throwable, ? extends U> fn) {
			return handleAsync(fn, this.placing);
		}

		@Override
		public CompletableFuture<T> whenComplete(BiConsumer<? super T, ? super Throwable> action) {
			return whenCompleteAsync(action, this.placing);
		}

		@Override
		public CompletableFuture<T> exceptionally(Function<Throwable, ? extends T> fn) {
			return exceptionallyAsync(fn, this.placing);
		}

		@Override
		public CompletableFuture<T> exceptionallyCompose(Function<Throwable, ? extends CompletionStage<T>> fn) {
			return exceptionallyComposeAsync(fn, this.placing);
		}

	}

	/** A thread of the engine's own, recognised by its type rather than its name. */
	private static final class EngineThread extends Thread {

		EngineThread(Runnable runnable, String name) {
			super(runnable, name);
		}

	}

}

package io.distlock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;

/**
 * The wait timer of one registry, its one thread: ends waits, runs the continuations of
 * acquisitions between store attempts, and bounds store calls by their callers' deadlines.
 * <p>
 * Store calls are bounded with one coarse tick
 * instead of a timer per call: a timer armed and cancelled around every round trip wakes a
 * timer thread each time, which on a busy machine costs more than the round trip's own
 * bookkeeping. The tick runs every {@link #TICK} on the registry's wait timer while calls are in
 * flight and stops when none are, so a bound is kept within one tick.
 * <p>
 * A call costs one queue insertion and nothing when it is answered: the tick, not the reply,
 * takes answered calls off the queue, so the driver's thread that completes a call neither
 * hashes nor locks anything here.
 */
final class CallDeadlines {

	/** How often calls in flight are checked; a bound may be overrun by this much. */
	static final Duration TICK = Duration.ofMillis(10);

	private final ScheduledExecutorService timer;

	/** The calls sent since the last tick and those still unanswered, in no useful order. */
	private final Queue<Bounded<?>> inFlight = new ConcurrentLinkedQueue<>();

	private final AtomicBoolean ticking = new AtomicBoolean();

	CallDeadlines(ScheduledExecutorService timer) {
		this.timer = timer;
	}

	/**
	 * Run a task after a delay on the timer; once the registry is closed, at once on the
	 * calling thread, where it finds the registry closed and ends.
	 * @return the scheduled task, or {@code null} if it ran at once
	 */
	ScheduledFuture<?> schedule(Runnable task, long delayNanos) {
		try {
			return this.timer.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			task.run();
			return null;
		}
	}

	/**
	 * Run a continuation on the timer; once the registry is closed, on the calling thread, where
	 * it finds the registry closed and ends.
	 */
	void execute(Runnable task) {
		try {
			this.timer.execute(task);
		}
		catch (RejectedExecutionException ex) {
			task.run();
		}
	}

	/**
	 * Fail if the registry was closed: its timer is shut down by then.
	 */
	void requireOpen() {
		if (this.timer.isShutdown()) {
			throw new IllegalStateException("Lock registry is closed");
		}
	}

	/**
	 * Return a future that completes as the call does, or fails with a
	 * {@link StoreCalls.StoreTimeoutException} once the bound has passed. The call itself is left
	 * alone: a request already sent may still be applied, which the owner comparison makes
	 * harmless.
	 */
	<T> CompletableFuture<T> within(CompletableFuture<T> call, Duration bound) {
		if (call.isDone()) {
			return call;
		}
		Bounded<T> bounded = new Bounded<>(System.nanoTime() + bound.toNanos(), bound);
		this.inFlight.add(bounded);
		call.whenComplete(bounded);
		// Whatever is queued is ticked off, even a call answered already.
		startTicking();
		return bounded;
	}

	private void startTicking() {
		if (this.ticking.compareAndSet(false, true)) {
			try {
				this.timer.schedule(this::tick, TICK.toNanos(), TimeUnit.NANOSECONDS);
			}
			catch (RejectedExecutionException ex) {
				// Closed registry: end every call in flight now rather than never.
				this.ticking.set(false);
				expire(Long.MAX_VALUE);
			}
		}
	}

	private void tick() {
		expire(System.nanoTime());
		this.ticking.set(false);
		// A call added while this tick ran may have seen it ticking and not started another.
		if (!this.inFlight.isEmpty()) {
			startTicking();
		}
	}

	/**
	 * Take answered calls off the queue and fail those whose bound has passed; the others go
	 * back on it. The queue is drained by polling, which unlinks each entry at once, then the
	 * calls still unanswered are queued again.
	 */
	private void expire(long nowNanos) {
		List<Bounded<?>> drained = new ArrayList<>();
		for (Bounded<?> bounded = this.inFlight.poll(); bounded != null; bounded = this.inFlight.poll()) {
			drained.add(bounded);
		}
		for (Bounded<?> bounded : drained) {
			if (bounded.isDone()) {
				continue;
			}
			if (nowNanos == Long.MAX_VALUE || nowNanos - bounded.deadlineNanos >= 0) {
				bounded.completeExceptionally(new StoreCalls.StoreTimeoutException(bounded.bound));
			}
			else {
				this.inFlight.add(bounded);
			}
		}
	}

	/**
	 * One call in flight: the answer its caller waits for, completed by the call's reply or by
	 * the tick that finds its deadline passed, whichever comes first.
	 */
	private static final class Bounded<T> extends CompletableFuture<T> implements BiConsumer<T, Throwable> {

		final long deadlineNanos;

		final Duration bound;

		Bounded(long deadlineNanos, Duration bound) {
			this.deadlineNanos = deadlineNanos;
			this.bound = bound;
		}

		@Override
		public void accept(T reply, Throwable failure) {
			if (failure != null) {
				completeExceptionally(StoreCalls.unwrap(failure));
			}
			else {
				complete(reply);
			}
		}

	}

}

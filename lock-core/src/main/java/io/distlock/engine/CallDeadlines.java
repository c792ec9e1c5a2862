package io.distlock.engine;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Bounds the store calls of one registry by their callers' deadlines, with one coarse tick
 * instead of a timer per call: a timer armed and cancelled around every round trip wakes a
 * timer thread each time, which on a busy machine costs more than the round trip's own
 * bookkeeping. The tick runs every {@link #TICK} on the registry's wait timer while calls are in
 * flight and stops when none are, so a bound is kept within one tick.
 */
final class CallDeadlines {

	/** How often calls in flight are checked; a bound may be overrun by this much. */
	static final Duration TICK = Duration.ofMillis(10);

	private final ScheduledExecutorService timer;

	private final Set<Bounded<?>> inFlight = ConcurrentHashMap.newKeySet();

	private final AtomicBoolean ticking = new AtomicBoolean();

	CallDeadlines(ScheduledExecutorService timer) {
		this.timer = timer;
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
		call.whenComplete((reply, failure) -> {
			this.inFlight.remove(bounded);
			if (failure != null) {
				bounded.answer.completeExceptionally(StoreCalls.unwrap(failure));
			}
			else {
				bounded.answer.complete(reply);
			}
		});
		if (!bounded.answer.isDone()) {
			startTicking();
		}
		return bounded.answer;
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

	private void expire(long nowNanos) {
		for (Bounded<?> bounded : this.inFlight) {
			if (nowNanos == Long.MAX_VALUE || nowNanos - bounded.deadlineNanos >= 0) {
				this.inFlight.remove(bounded);
				bounded.answer.completeExceptionally(new StoreCalls.StoreTimeoutException(bounded.bound));
			}
		}
	}

	/** One call in flight: its deadline and the answer its caller waits for. */
	private static final class Bounded<T> {

		final long deadlineNanos;

		final Duration bound;

		final CompletableFuture<T> answer = new CompletableFuture<>();

		Bounded(long deadlineNanos, Duration bound) {
			this.deadlineNanos = deadlineNanos;
			this.bound = bound;
		}

	}

}

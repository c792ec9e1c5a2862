package io.distlock.engine;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;

/**
 * How one {@link PendingHold} waits once it has to: the timer that ends its wait in the local
 * queue or its pause between store attempts, the release notifications its gate listens to
 * meanwhile, and the wake-up that ends a pause early. An acquisition that never waits never makes
 * one.
 */
final class HoldWait {

	private final CallDeadlines timer;

	private final ReleaseNotifications notifications;

	private final Gate gate;

	/** Guarded by this; what ends a wait in the queue or a pause. */
	private ScheduledFuture<?> scheduled;

	/** Completed to end a pause early: a release notification or a cancellation. */
	private volatile CompletableFuture<Void> wake;

	/** Guarded by this; whether the gate counts this hold among those waiting for a release. */
	private boolean listening;

	HoldWait(CallDeadlines timer, ReleaseNotifications notifications, Gate gate) {
		this.timer = timer;
		this.notifications = notifications;
		this.gate = gate;
	}

	/**
	 * Run a task after a delay on the timer; once the registry is closed, at once.
	 */
	synchronized void schedule(Runnable task, long delayNanos) {
		this.scheduled = this.timer.schedule(task, delayNanos);
	}

	synchronized void cancelTimer() {
		if (this.scheduled != null) {
			this.scheduled.cancel(false);
			this.scheduled = null;
		}
	}

	/**
	 * Wait for a release notification, a wake-up or the pause, then go on on the timer.
	 * @param result the acquisition's result: once it is complete (cancelled), the pause ends at
	 * once
	 */
	void pause(CompletableFuture<?> result, long pauseNanos, Runnable next) {
		CompletableFuture<Void> woken = this.gate.awaitRelease();
		this.wake = woken;
		// After the wake is set: a cancellation completes the result first, then wakes.
		if (result.isDone()) {
			woken.complete(null);
		}
		if (!woken.isDone()) {
			schedule(() -> woken.complete(null), pauseNanos);
		}
		woken.thenRun(() -> {
			this.wake = null;
			cancelTimer();
			this.timer.execute(next);
		});
	}

	/**
	 * End a pause under way at once.
	 */
	void wakeUp() {
		CompletableFuture<Void> pause = this.wake;
		if (pause != null) {
			pause.complete(null);
		}
	}

	/**
	 * Listen for releases of the key between attempts. Starts the subscription in the background
	 * if it is not running; once it runs, waiting gates are woken, since a release published
	 * before it was missed.
	 */
	void listen() {
		synchronized (this) {
			if (!this.listening) {
				this.notifications.startWaiting(this.gate);
				this.listening = true;
			}
		}
		this.notifications.ensureListening();
	}

	/**
	 * Stop listening for releases: the acquisition ended.
	 */
	synchronized void stopListening() {
		if (this.listening) {
			this.notifications.stopWaiting(this.gate);
			this.listening = false;
		}
	}

}

package io.distlock.engine;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;

/**
 * How one {@link PendingHold} waits once it has to, in one place: the timer that ends its wait
 * in the local queue or its pause between store attempts, the release notifications it listens
 * to meanwhile (and one that came while it was not pausing), and the wake-up that ends a pause
 * early. An acquisition that never waits never makes one. Its fields change under its own
 * monitor, which is never held around I/O or while a future completes.
 */
final class HoldWait {

	private final CallDeadlines timer;

	private final ReleaseNotifications notifications;

	/** The key in the store whose releases wake this wait. */
	private final String key;

	/**
	 * Guarded by this; what the notifications run on a release of the key while it listens, made
	 * when it first listens (a wait in the local queue never does).
	 */
	private Runnable released;

	/** Guarded by this; what ends a wait in the queue or a pause. */
	private ScheduledFuture<?> scheduled;

	/** Completed to end a pause early: a release notification or a cancellation. */
	private volatile CompletableFuture<Void> wake;

	/** Guarded by this; whether release notifications of the key reach this wait. */
	private boolean listening;

	/** Guarded by this; a release notification that arrived while no pause awaited one. */
	private boolean releaseSignalled;

	/** Guarded by this; completed by the next release notification. */
	private CompletableFuture<Void> releaseAwaited;

	HoldWait(CallDeadlines timer, ReleaseNotifications notifications, String key) {
		this.timer = timer;
		this.notifications = notifications;
		this.key = key;
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
		CompletableFuture<Void> woken = awaitRelease();
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
	 * if it is not running; once it runs, waits that listen are woken, since a release published
	 * before it was missed.
	 */
	void listen() {
		synchronized (this) {
			if (!this.listening) {
				if (this.released == null) {
					this.released = this::signalReleased;
				}
				this.notifications.startWaiting(this.key, this.released);
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
			this.notifications.stopWaiting(this.key, this.released);
			this.listening = false;
		}
	}

	/**
	 * Wake the pause that waits for the store to release the key, or, if none waits right now,
	 * let the next one go at once. A burst of notifications wakes it once.
	 */
	void signalReleased() {
		CompletableFuture<Void> awaited;
		synchronized (this) {
			awaited = this.releaseAwaited;
			this.releaseAwaited = null;
			this.releaseSignalled = (awaited == null);
		}
		if (awaited != null) {
			awaited.complete(null);
		}
	}

	/**
	 * Forget notifications that arrived before the attempt about to be sent: it sees their
	 * releases itself.
	 */
	synchronized void clearReleaseSignals() {
		this.releaseSignalled = false;
	}

	/**
	 * Return a future completed by the next release notification, or already completed if one
	 * arrived since the signals were last cleared. Whoever waits on it also bounds the wait.
	 */
	synchronized CompletableFuture<Void> awaitRelease() {
		if (this.releaseSignalled) {
			this.releaseSignalled = false;
			return CompletableFuture.completedFuture(null);
		}
		this.releaseAwaited = new CompletableFuture<>();
		return this.releaseAwaited;
	}

}

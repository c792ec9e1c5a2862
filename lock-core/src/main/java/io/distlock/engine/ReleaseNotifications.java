package io.distlock.engine;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.distlock.core.WaitStrategy;

import io.distlock.store.LockStore;

/**
 * Wakes the acquisitions of this process that wait for a key another process holds. The store
 * delivers one notification per release of an awaited key; every wait that listens on that key
 * (an exclusive waiter, a writer, readers) is woken and retries.
 */
final class ReleaseNotifications {

	private final LockStore store;

	private final boolean enabled;

	private final long retryNanos;

	/** The wake-ups of the waits that listen, by key. */
	private final ConcurrentMap<String, Set<Runnable>> waiting = new ConcurrentHashMap<>();

	private final AtomicBoolean subscribing = new AtomicBoolean();

	/** Starts the subscription; its one thread ends when idle. */
	private final ThreadPoolExecutor subscriber = new ThreadPoolExecutor(0, 1, 10, TimeUnit.SECONDS,
			new LinkedBlockingQueue<>(), Continuations.engineThreads("distlock-subscribe"));

	private volatile boolean listening;

	private volatile boolean attempted;

	private volatile long lastAttemptNanos;

	ReleaseNotifications(LockStore store, RegistrySettings settings) {
		this.store = store;
		this.enabled = settings.waitStrategy() == WaitStrategy.PUB_SUB;
		this.retryNanos = settings.retryInterval().toNanos();
	}

	boolean enabled() {
		return this.enabled;
	}

	/**
	 * Make sure notifications flow before a gate waits. The subscription starts on a thread of
	 * its own, never the caller's: connecting a subscription to a store that does not answer can
	 * take the driver's connect timeout, and no caller may wait past its wait time for it. Until
	 * it runs, waiters retry at their retry interval; once it runs, every listening wait is woken,
	 * since a release published before the subscription existed was missed.
	 */
	void ensureListening() {
		if (!this.enabled || this.listening) {
			return;
		}
		long now = System.nanoTime();
		boolean triedRecently = this.attempted && now - this.lastAttemptNanos < this.retryNanos;
		if (triedRecently || !this.subscribing.compareAndSet(false, true)) {
			// Someone else is subscribing, or tried recently: poll meanwhile.
			return;
		}
		this.lastAttemptNanos = now;
		this.attempted = true;
		try {
			this.subscriber.execute(this::subscribe);
		}
		catch (RejectedExecutionException ex) {
			this.subscribing.set(false);
			throw ex;
		}
	}

	private void subscribe() {
		try {
			if (!this.listening && this.store.listen(this::released)) {
				this.listening = true;
				this.waiting.values().forEach((wakeUps) -> wakeUps.forEach(Runnable::run));
			}
		}
		finally {
			this.subscribing.set(false);
		}
	}

	/**
	 * Run the given wake-up on every release of the key, until {@link #stopWaiting}. It runs on
	 * the driver's or the subscriber's thread, so it must only complete the engine's own state.
	 */
	void startWaiting(String key, Runnable wakeUp) {
		this.waiting.computeIfAbsent(key, (k) -> ConcurrentHashMap.newKeySet()).add(wakeUp);
	}

	void stopWaiting(String key, Runnable wakeUp) {
		this.waiting.computeIfPresent(key, (k, wakeUps) -> {
			wakeUps.remove(wakeUp);
			return wakeUps.isEmpty() ? null : wakeUps;
		});
	}

	int waitingKeys() {
		return this.waiting.size();
	}

	private void released(String key) {
		Set<Runnable> wakeUps = this.waiting.get(key);
		if (wakeUps != null) {
			wakeUps.forEach(Runnable::run);
		}
	}

}

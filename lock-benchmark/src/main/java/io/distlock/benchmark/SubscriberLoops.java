package io.distlock.benchmark;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/**
 * The reactive counterpart of {@link GrantLoops}: subscribers that each subscribe to a locked
 * {@code Mono} and, when it completes, subscribe again, from {@link #go()} to {@link #stop()},
 * each recording the latency of every grant (subscription to completion: lock, section, unlock).
 * No thread of their own: each subscription runs on whatever thread signals it, the lock
 * driver's or the section's scheduler.
 */
final class SubscriberLoops implements Loops {

	private final AtomicBoolean running = new AtomicBoolean(true);

	private final AtomicReference<Throwable> failure = new AtomicReference<>();

	private final List<Disposable> subscriptions = new ArrayList<>();

	private final CountDownLatch done;

	private final long[][] latencies;

	private final int[] counts;

	private final int subscribers;

	private final ReactiveContender contender;

	private final String key;

	private final Supplier<Mono<Void>> section;

	private final String label;

	/**
	 * Prepare the scenario's subscribers on one key; they subscribe on {@link #go()}.
	 * @param section a fresh section for each grant
	 */
	SubscriberLoops(Scenario scenario, ReactiveContender contender, String key, Supplier<Mono<Void>> section) {
		this.label = contender.name() + " in '" + scenario.name() + "'";
		this.subscribers = scenario.threads();
		this.contender = contender;
		this.key = key;
		this.section = section;
		this.done = new CountDownLatch(this.subscribers);
		this.latencies = new long[this.subscribers][64];
		this.counts = new int[this.subscribers];
	}

	@Override
	public void go() {
		for (int s = 0; s < this.subscribers; s++) {
			int index = s;
			Mono<Void> grant = Mono.defer(() -> {
				long begin = System.nanoTime();
				return this.contender.locked(this.key, index, this.section.get())
					.then(Mono.fromRunnable(() -> record(index, System.nanoTime() - begin)));
			});
			this.subscriptions.add(grant.repeat(this.running::get).subscribe(null, (ex) -> {
				this.failure.compareAndSet(null, ex);
				this.done.countDown();
			}, this.done::countDown));
		}
	}

	private void record(int subscriber, long latency) {
		long[] mine = this.latencies[subscriber];
		int count = this.counts[subscriber];
		if (count == mine.length) {
			mine = Arrays.copyOf(mine, mine.length * 2);
			this.latencies[subscriber] = mine;
		}
		mine[count] = latency;
		this.counts[subscriber] = count + 1;
	}

	/**
	 * Stop resubscribing and wait for every subscriber's last grant to complete.
	 * @return each subscriber's latencies in nanoseconds, one per grant
	 * @throws IllegalStateException if a subscriber failed or did not finish within a minute
	 */
	@Override
	public long[][] stop() throws InterruptedException {
		this.running.set(false);
		boolean finished = this.done.await(60, TimeUnit.SECONDS);
		if (this.failure.get() != null) {
			throw new IllegalStateException(this.label + " failed", this.failure.get());
		}
		if (!finished) {
			this.subscriptions.forEach(Disposable::dispose);
			throw new IllegalStateException(this.label + ": " + this.done.getCount()
					+ " subscribers still running a minute after the stop");
		}
		long[][] all = new long[this.subscribers][];
		for (int s = 0; s < this.subscribers; s++) {
			all[s] = Arrays.copyOf(this.latencies[s], this.counts[s]);
		}
		return all;
	}

}

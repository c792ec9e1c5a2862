package io.distlock.test.contract;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A detector for asynchronous sections: a counter read before and written after an
 * asynchronous gap, and the most visitors inside at once.
 */
final class ExclusionProbe {

	private final AtomicInteger inside = new AtomicInteger();

	private final AtomicInteger most = new AtomicInteger();

	private volatile int counter;

	CompletableFuture<Integer> visit() {
		this.most.accumulateAndGet(this.inside.incrementAndGet(), Math::max);
		int read = this.counter;
		return CompletableFuture.supplyAsync(() -> {
			this.counter = read + 1;
			this.inside.decrementAndGet();
			return read;
		}, CompletableFuture.delayedExecutor(200, TimeUnit.MICROSECONDS));
	}

	int counter() {
		return this.counter;
	}

	int mostInside() {
		return this.most.get();
	}

}

package io.distlock.engine;

import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.distlock.core.LossStatistics;

/**
 * Counts the locks a registry has lost and remembers when it last lost one, for health checks.
 */
final class LossCounter {

	private final AtomicLong lost = new AtomicLong();

	private final AtomicReference<Instant> lastLoss = new AtomicReference<>();

	void recordLoss() {
		// Wall clock for display only (health details); no deadline is computed from it.
		this.lastLoss.set(Instant.now());
		this.lost.incrementAndGet();
	}

	LossStatistics snapshot() {
		return new LossStatistics(this.lost.get(), this.lastLoss.get());
	}

}

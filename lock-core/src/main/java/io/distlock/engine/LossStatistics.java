package io.distlock.engine;

import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * How many locks a registry has lost and when it last lost one, for health checks.
 */
public final class LossStatistics {

	private final AtomicLong lost = new AtomicLong();

	private final AtomicReference<Instant> lastLoss = new AtomicReference<>();

	void recordLoss() {
		this.lost.incrementAndGet();
		this.lastLoss.set(Instant.now());
	}

	/**
	 * Return how many locks were lost while held since the registry started.
	 * @return the number of losses
	 */
	public long lostCount() {
		return this.lost.get();
	}

	/**
	 * Return when the registry last lost a lock.
	 * @return the time of the last loss, or {@code null} if none
	 */
	public Instant lastLoss() {
		return this.lastLoss.get();
	}

}

package io.distlock.sample.inventory.reservation;

import java.time.Duration;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * Simulated business work between reading the stock and writing it (pricing, fraud checks),
 * which is where races happen. {@code inventory.think-time}, default 0; now and then a pause
 * past the lease ({@link HolderPauses}).
 */
@Component
public class ThinkTime {

	private final Duration duration;

	private final HolderPauses pauses;

	public ThinkTime(@Value("${inventory.think-time:0ms}") Duration duration, HolderPauses pauses) {
		this.duration = duration;
		this.pauses = pauses;
	}

	void pause() {
		try {
			this.pauses.maybePause();
			if (this.duration.isZero()) {
				return;
			}
			Thread.sleep(this.duration.toMillis(), this.duration.toNanosPart() % 1_000_000);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}

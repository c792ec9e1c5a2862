package io.distlock.sample.inventory.reservation;

import java.time.Duration;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * Simulated business work between reading the stock and writing it (pricing, fraud checks),
 * which is where races happen. {@code inventory.think-time}, default 0.
 */
@Component
public class ThinkTime {

	private final Duration duration;

	public ThinkTime(@Value("${inventory.think-time:0ms}") Duration duration) {
		this.duration = duration;
	}

	void pause() {
		if (this.duration.isZero()) {
			return;
		}
		try {
			Thread.sleep(this.duration.toMillis(), this.duration.toNanosPart() % 1_000_000);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}

package io.distlock.faults;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The checker of T34 and T38 on hand-made histories: it finds holds that are valid at once, and
 * only those.
 */
class MutexHistoryTests {

	@Test
	void holdThatBeginsWhileAnotherIsValidOverlapsIt() {
		MutexHistory history = MutexHistory.of(List.of(new MutexHistory.Hold(0, 100_000, 1_000_000, 1, "a"),
				new MutexHistory.Hold(50_000, 150_000, 1_050_000, 2, "b")));

		assertThat(history.overlaps())
			.containsExactly("hold of b (token 2) began 50 µs before hold of a (token 1) ended");
		assertThat(history.overlappingPairs()).extracting(MutexHistory.Overlap::later)
			.extracting(MutexHistory.Hold::holder)
			.containsExactly("b");
	}

	@Test
	void holdThatBeginsAfterTheOtherIsReleasedOrInvalidOverlapsNothing() {
		MutexHistory history = MutexHistory.of(List.of(new MutexHistory.Hold(0, 100_000, 1_000_000, 1, "released"),
				new MutexHistory.Hold(100_000, 200_000, 1_000_000, 2, "next"),
				new MutexHistory.Hold(300_000, 900_000, 400_000, 3, "paused past its deadline"),
				new MutexHistory.Hold(400_000, 500_000, 1_000_000, 4, "after that deadline")));

		assertThat(history.overlaps()).isEmpty();
	}

	/**
	 * The pair the 4-minute soak with seed 8032303969233 reported as an overlap of soak:m (times
	 * in nanoseconds, as logged): a multi-lock took soak:m before a 1.8 s freeze of Redis and
	 * soak:x after it, by which time its soak:m grant had been declared lost, so its soak:m hold
	 * was never valid (valid until its own start; the holder was told 0.1 ms later, when it
	 * registered its callback), while another process held soak:m with a newer token.
	 */
	@Test
	void holdLostBeforeItBeganOverlapsNothing() {
		MutexHistory.Hold valid = new MutexHistory.Hold(11574811022248L, 11574826607391L, 11575796818657L,
				1795511609215401L, "21268-Thread-1");
		MutexHistory.Hold lostBeforeItBegan = new MutexHistory.Hold(11574814558326L, 11574824972383L,
				11574814558326L, 1795511607331068L, "21272-Thread-1");

		assertThat(MutexHistory.of(List.of(valid, lostBeforeItBegan)).overlaps()).isEmpty();
	}

	@Test
	void holdValidForAnInstantAfterItBeganStillOverlaps() {
		MutexHistory.Hold valid = new MutexHistory.Hold(0, 1_000_000, 1_000_000, 2, "valid");
		MutexHistory.Hold briefly = new MutexHistory.Hold(500_000, 900_000, 500_001, 1, "briefly");

		assertThat(MutexHistory.of(List.of(valid, briefly)).overlaps()).hasSize(1);
	}

}

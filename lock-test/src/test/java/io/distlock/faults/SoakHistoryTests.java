package io.distlock.faults;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * T38's loss-signal check on the holds of the 4-minute soak with seed 19019121683887 (times in
 * nanoseconds, as logged): three holds of {@code soak:a} in one process followed each other by
 * local handoff (tokens ...031, ...032, ...033, one grant from Redis). An administrator's
 * {@code DEL} came 3.4 ms into the hold with token ...032, which handed the grant on without a
 * round trip and was not told; the hold with token ...033 was told 25 ms after the {@code DEL}.
 * The schedule logs when the {@code DEL} was sent; its answer is taken 0.5 ms later.
 */
class SoakHistoryTests {

	private static final Duration LEASE = Duration.ofSeconds(1);

	private static final String FIRST = "soak:a X 19244043018057 19244074199275 19245029578859 1795519278448031 "
			+ "1410-pool-2-thread-1 0 300000000 19244015636715 19245029578287 0";

	private static final String SPANNED_THE_DEL = "soak:a X 19244074383392 19244090186417 19245029578808 "
			+ "1795519278448032 1410-pool-2-thread-2 0 300000000 19244048208920 19245029578166 0";

	private static final String TOLD = "soak:a X 19244090496013 19244100814229 19245029578888 1795519278448033 "
			+ "1410-pool-2-thread-1 1 300000000 19244082644053 19245029578247 19244102939553";

	private static final SoakHistory.Delete DEL = new SoakHistory.Delete("soak:a", 19244077816837L,
			19244078316837L, true);

	@Test
	void lossToldToTheHoldTheGrantWasHandedToIsTold() {
		SoakHistory history = history(FIRST, SPANNED_THE_DEL, TOLD);

		assertThat(history.mustHaveLost()).isEqualTo(1);
		assertThat(history.unsignalledLosses()).isEmpty();
		assertThat(history.toldDownHandoffs()).isEqualTo(1);
	}

	@Test
	void lossToldToNoHoldOfTheChainIsUntold() {
		SoakHistory history = history(FIRST, SPANNED_THE_DEL, TOLD.replace(" 1 300000000 ", " 0 300000000 "));

		assertThat(history.unsignalledLosses()).singleElement().asString().contains("1795519278448032");
	}

	@Test
	void lossToldMoreThanALeaseAfterTheDeleteIsUntold() {
		SoakHistory history = history(FIRST, SPANNED_THE_DEL, TOLD.replace(" 19244102939553", " 19245078316838"));

		assertThat(history.unsignalledLosses()).singleElement().asString().contains("1795519278448032");
	}

	@Test
	void holdOfAnotherProcessWithTheNextTokenIsNotAHandoff() {
		SoakHistory history = history(FIRST, SPANNED_THE_DEL, TOLD.replace("1410-pool", "1413-pool"));

		assertThat(history.unsignalledLosses()).singleElement().asString().contains("1795519278448032");
	}

	@Test
	void holdThatBeganBeforeTheOtherEndedIsNotAHandoff() {
		SoakHistory history = history(FIRST, SPANNED_THE_DEL, TOLD.replace("19244090496013", "19244090186416"));

		assertThat(history.unsignalledLosses()).singleElement().asString().contains("1795519278448032");
	}

	private static SoakHistory history(String... lines) {
		return new SoakHistory(List.of(lines), List.of(), List.of(DEL), LEASE);
	}

}

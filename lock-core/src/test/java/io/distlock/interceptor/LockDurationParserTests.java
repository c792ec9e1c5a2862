package io.distlock.interceptor;

import java.time.Duration;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class LockDurationParserTests {

	@ParameterizedTest
	@CsvSource({ "500ms, PT0.5S", "2s, PT2S", "5m, PT5M", "1h, PT1H", "1d, PT24H", "250, PT0.25S", "PT2S, PT2S",
			"pt1m, PT1M", "0, PT0S", "-1s, PT-1S", "100us, PT0.0001S", "10ns, PT0.00000001S", " 3s , PT3S",
			"10MS, PT0.01S", "2S, PT2S", "+10s, PT10S", "+PT15M, PT15M", "-PT6H3M, PT-6H-3M" })
	void readsSimpleAndIsoDurations(String text, Duration expected) {
		assertThat(LockDurationParser.parse(text)).isEqualTo(expected);
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			2x     | has an unknown unit 'x' (use ns, us, ms, s, m, h or d)
			soon   | is not a duration (write it as 500ms, 2s, 5m or PT2S)
			1.5s   | is not a duration (write it as 500ms, 2s, 5m or PT2S)
			PTXS   | is not an ISO-8601 duration
			""")
	void refusesAnythingElse(String text, String message) {
		assertThatIllegalArgumentException().isThrownBy(() -> LockDurationParser.parse(text)).withMessage(message);
	}

}

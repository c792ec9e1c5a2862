package io.distlock.docs;

import java.nio.file.Files;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The reliability table of {@code docs/reliability.md} is the fault suite's report: same tests,
 * same outcomes (see {@link ReportSection}). Tagged {@code fault}, so it runs in
 * {@code ./mvnw -Pfaults verify}, after {@code lock-test} has written
 * {@code lock-test/target/fault-report.md} (this module builds last).
 */
@Tag("fault")
class FaultReportTableTests {

	private static final String REPORT = "lock-test/target/fault-report.md";

	@Test
	void theReliabilityTableIsTheFaultSuitesReport() {
		assertThat(Files.exists(ReportSection.reportFile(REPORT)))
			.as(REPORT + " (the fault suite writes it: run ./mvnw -Pfaults verify from the root)")
			.isTrue();
		MeasuredTables.check(REPORT);
	}

}

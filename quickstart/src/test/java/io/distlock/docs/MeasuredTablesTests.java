package io.distlock.docs;

import java.nio.file.Files;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The measured tables of {@code docs/} that the default build's runs write (the sample's flash
 * sale, the topologies' cost) stay the tables those runs produce; see {@link ReportSection}. This
 * module builds last, so in {@code ./mvnw verify} the reports are fresh. Without a report the test
 * is skipped on a developer's partial build and fails under {@code CI=true}.
 */
class MeasuredTablesTests {

	@ParameterizedTest
	@ValueSource(strings = { "sample-inventory-app/target/flash-sale-report.md", "lock-test/target/topology-cost.md" })
	void theTableIsTheRunsReport(String report) {
		boolean written = Files.exists(ReportSection.reportFile(report));
		// In CI the whole build runs, so a missing report is a failure, never a skip.
		assertThat(written || !"true".equals(System.getenv("CI")))
			.as("No " + report + " although CI=true: the build that writes it did not run before this module")
			.isTrue();
		assumeTrue(written, "No " + report + ": run the whole build (./mvnw verify) to write it");
		MeasuredTables.check(report);
	}

}

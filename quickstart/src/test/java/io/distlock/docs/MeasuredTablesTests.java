package io.distlock.docs;

import java.nio.file.Files;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The measured tables of {@code docs/} that the default build's runs write (the sample's flash
 * sale, the topologies' cost) stay the tables those runs produce; see {@link ReportSection}. This
 * module builds last, so in {@code ./mvnw verify} the reports are fresh.
 */
class MeasuredTablesTests {

	@ParameterizedTest
	@ValueSource(strings = { "sample-inventory-app/target/flash-sale-report.md", "lock-test/target/topology-cost.md" })
	void theTableIsTheRunsReport(String report) {
		assumeTrue(Files.exists(ReportSection.reportFile(report)),
				"No " + report + ": run the whole build (./mvnw verify) to write it");
		MeasuredTables.check(report);
	}

}

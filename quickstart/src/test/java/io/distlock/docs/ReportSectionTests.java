package io.distlock.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The comparison of a page's measured table with its run's report fires on a missing or an
 * extra row or a changed outcome, and not on measured cells (the negative control of the
 * checks that use it).
 */
class ReportSectionTests {

	private static final String HEADER = "| test | fault | outcome | measured |\n| --- | --- | --- | --- |\n";

	@TempDir
	Path folder;

	@Test
	void measuredCellsMayDifferButRowsAndOutcomesMayNot() throws IOException {
		Path report = this.folder.resolve("report.md");
		Files.writeString(report, HEADER + "| T01 | none | exclusion holds | 1,500 grants |\n"
				+ "| T02 | kill | frees itself | 10/10 after 1.8 s |\n");

		assertThat(section(report, "| T01 | none | exclusion holds | 1,400 grants |",
				"| T02 | kill | frees itself | 10/10 after 1.9 s |").differences()).isEmpty();
		assertThat(section(report, "| T01 | none | exclusion holds | 1,500 grants |").differences())
			.containsExactly("in the run, not on the page: T02 | frees itself");
		assertThat(section(report, "| T01 | none | exclusion breaks | 1,500 grants |",
				"| T02 | kill | frees itself | 10/10 after 1.8 s |").differences())
			.containsExactly("on the page, not in the run: T01 | exclusion breaks",
					"in the run, not on the page: T01 | exclusion holds");
	}

	private ReportSection section(Path report, String... rows) {
		List<String> table = new ArrayList<>(HEADER.lines().toList());
		table.addAll(List.of(rows));
		return new ReportSection(this.folder.resolve("page.md"), report.toAbsolutePath().toString(), new int[] { 1, 3 },
				false, table);
	}

}

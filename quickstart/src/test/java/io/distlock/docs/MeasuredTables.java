package io.distlock.docs;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Checks, or with {@code -Ddistlock.docs.update=true} rewrites, every section of {@code docs/}
 * that embeds one report.
 */
final class MeasuredTables {

	private MeasuredTables() {
	}

	static void check(String report) {
		List<ReportSection> sections = ReportSection.find(report);
		assertThat(sections).as("pages under docs/ that embed " + report).isNotEmpty();
		for (ReportSection section : sections) {
			if (ReportSection.updating()) {
				section.update();
			}
			else {
				assertThat(section.differences())
					.as(Documentation.name(section.page()) + " against " + report
							+ " (rewrite it with -D" + ReportSection.UPDATE_PROPERTY + "=true)")
					.isEmpty();
			}
		}
	}

}

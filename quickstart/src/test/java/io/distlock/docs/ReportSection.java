package io.distlock.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A table in a page under {@code docs/} that a run of the build measured, between
 * {@code <!-- report: lock-test/target/fault-report.md keys=1,3 sorted -->} and
 * {@code <!-- end report -->}. The report is the Markdown table the run wrote.
 * <p>
 * Measured cells move from run to run, so the check compares what a run must reproduce: the rows
 * (by the key columns, such as the test and what happens) and their order does not matter. A
 * row that the run no longer writes, or a new row the page lacks, fails. With
 * {@code -Ddistlock.docs.update=true} the section is rewritten from the fresh report instead, so
 * every figure on the page comes from one run.
 *
 * @param page the page
 * @param report the report file, relative to the repository's root
 * @param keys the 1-based columns compared
 * @param sorted whether the rewritten rows are sorted by their first cell (marker ending in
 * {@code sorted}) rather than in the order the run wrote them
 * @param table the section's table lines
 */
record ReportSection(Path page, String report, int[] keys, boolean sorted, List<String> table) {

	static final String UPDATE_PROPERTY = "distlock.docs.update";

	private static final Pattern START = Pattern.compile("^<!-- report: (\\S+) keys=([0-9,]+)( sorted)? -->$");

	private static final String END = "<!-- end report -->";

	static List<ReportSection> find(String report) {
		List<ReportSection> sections = new ArrayList<>();
		for (Path page : Documentation.docsPages()) {
			List<String> lines = Documentation.read(page).lines().toList();
			for (int i = 0; i < lines.size(); i++) {
				Matcher start = START.matcher(lines.get(i));
				if (start.matches() && start.group(1).equals(report)) {
					int end = lines.subList(i, lines.size()).indexOf(END) + i;
					if (end < i) {
						throw new IllegalStateException(Documentation.name(page) + " has no '" + END + "' after line " + (i + 1));
					}
					int[] keys = Arrays.stream(start.group(2).split(",")).mapToInt(Integer::parseInt).toArray();
					sections.add(new ReportSection(page, report, keys, start.group(3) != null,
							tableLines(lines.subList(i + 1, end))));
				}
			}
		}
		return sections;
	}

	static Path reportFile(String report) {
		return Documentation.ROOT.resolve(report);
	}

	static boolean updating() {
		return Boolean.getBoolean(UPDATE_PROPERTY);
	}

	/**
	 * Return what the page has and the report lacks, and the reverse, as key tuples.
	 */
	List<String> differences() {
		Map<String, String> pageRows = rows(this.table);
		Map<String, String> reportRows = rows(reportLines());
		List<String> differences = new ArrayList<>();
		pageRows.keySet()
			.stream()
			.filter((key) -> !reportRows.containsKey(key))
			.forEach((key) -> differences.add("on the page, not in the run: " + key));
		reportRows.keySet()
			.stream()
			.filter((key) -> !pageRows.containsKey(key))
			.forEach((key) -> differences.add("in the run, not on the page: " + key));
		if (!this.table.isEmpty() && !reportLines().isEmpty() && !this.table.get(0).equals(reportLines().get(0))) {
			differences.add("header differs: " + this.table.get(0) + " vs " + reportLines().get(0));
		}
		return differences;
	}

	/**
	 * Replace the section's table with the report's rows (the last row of each key, as a rerun
	 * without {@code clean} appends to some reports).
	 */
	void update() {
		List<String> report = reportLines();
		List<String> fresh = new ArrayList<>(report.subList(0, Math.min(2, report.size())));
		List<String> rows = new ArrayList<>(rows(report).values());
		if (this.sorted) {
			rows.sort(Comparator.comparing((String row) -> row.split("\\|")[1].strip()));
		}
		fresh.addAll(rows);
		String text = Documentation.read(this.page);
		String start = "<!-- report: " + this.report + " keys=";
		int from = text.indexOf("\n", text.indexOf(start)) + 1;
		int to = text.indexOf(END, from);
		String updated = text.substring(0, from) + String.join("\n", fresh) + "\n" + text.substring(to);
		try {
			Files.writeString(this.page, updated);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private List<String> reportLines() {
		return tableLines(Documentation.read(reportFile(this.report)).lines().toList());
	}

	private Map<String, String> rows(List<String> tableLines) {
		Map<String, String> rows = new LinkedHashMap<>();
		for (String line : tableLines.subList(Math.min(2, tableLines.size()), tableLines.size())) {
			String[] cells = line.substring(1, line.length() - 1).split("\\|", -1);
			StringBuilder key = new StringBuilder();
			for (int column : this.keys) {
				key.append(key.isEmpty() ? "" : " | ").append(cells[column - 1].strip());
			}
			rows.put(key.toString(), line);
		}
		return rows;
	}

	private static List<String> tableLines(List<String> lines) {
		return lines.stream().map(String::strip).filter((line) -> line.startsWith("|") && line.endsWith("|")).toList();
	}

}

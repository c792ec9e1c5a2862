package io.distlock.docs;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's "why distlock" table states two benchmark results against Redisson; they are read
 * here from {@code docs/benchmark.md}, which one {@code -Pbench} run writes, so a rerun that no
 * longer shows them fails the build until the README says otherwise.
 */
class BenchmarkClaimsTests {

	private static final String HOT_KEY = "16 threads, one hot key, empty section";

	private static final String WAITERS = "64 waiters, one hot key, 1 ms section";

	@Test
	void aHotKeyInOneJvmIsGrantedAtLeastTenTimesAsOftenAsWithRedisson() {
		Map<String, Map<String, String>> table = table(Documentation.read(Documentation.DOCS.resolve("benchmark.md")), HOT_KEY);
		assertThat(number(table, "distlock", "grants/s"))
			.as("distlock's grants/s against ten times Redisson's in '" + HOT_KEY + "' of docs/benchmark.md")
			.isGreaterThanOrEqualTo(10 * number(table, "Redisson RLock", "grants/s"));
	}

	@Test
	void sixtyFourWaitersSeeAtMostAThirdOfRedissonsP99() {
		Map<String, Map<String, String>> table = table(Documentation.read(Documentation.DOCS.resolve("benchmark.md")), WAITERS);
		assertThat(3 * number(table, "distlock", "p99 µs"))
			.as("three times distlock's p99 against Redisson's in '" + WAITERS + "' of docs/benchmark.md")
			.isLessThanOrEqualTo(number(table, "Redisson RLock", "p99 µs"));
	}

	@Test
	void aTableThatMissesTheClaimIsRead() {
		// The negative control: the same reading of a table where distlock falls short.
		String page = """
				**16 threads, one hot key, empty section**

				| contender | grants/s | p99 µs |
				| --- | --- | --- |
				| distlock | 9000 | 480 |
				| Redisson RLock | 3173 | 45200 |
				""";
		Map<String, Map<String, String>> table = table(page, HOT_KEY);
		assertThat(number(table, "distlock", "grants/s")).isLessThan(10 * number(table, "Redisson RLock", "grants/s"));
	}

	/**
	 * Return the rows of the table under a bold title, by their first cell, each by column name.
	 */
	static Map<String, Map<String, String>> table(String page, String title) {
		List<String> lines = page.lines().toList();
		int start = -1;
		for (int i = 0; i < lines.size(); i++) {
			if (lines.get(i).startsWith("**" + title + "**")) {
				start = i;
				break;
			}
		}
		assertThat(start).as("a table titled '" + title + "'").isNotNegative();
		List<String> rows = new ArrayList<>();
		for (int i = start + 1; i < lines.size() && rows.size() < 100; i++) {
			String line = lines.get(i).strip();
			if (line.startsWith("|")) {
				rows.add(line);
			}
			else if (!rows.isEmpty()) {
				break;
			}
		}
		List<String> header = cells(rows.get(0));
		Map<String, Map<String, String>> table = new LinkedHashMap<>();
		for (String row : rows.subList(2, rows.size())) {
			List<String> cells = cells(row);
			Map<String, String> byColumn = new LinkedHashMap<>();
			for (int c = 0; c < header.size(); c++) {
				byColumn.put(header.get(c), cells.get(c));
			}
			table.put(cells.get(0), byColumn);
		}
		return table;
	}

	private static double number(Map<String, Map<String, String>> table, String contender, String column) {
		assertThat(table).as("rows").containsKey(contender);
		return Double.parseDouble(table.get(contender).get(column).replace(",", "").replace("%", ""));
	}

	private static List<String> cells(String row) {
		return List.of(row.substring(1, row.length() - 1).split("\\|", -1)).stream().map(String::strip).toList();
	}

}

package io.distlock.docs;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's "why distlock" table states two benchmark results against Redisson, and
 * {@code docs/jdbc-store.md} three against the peers on PostgreSQL; they are read here from
 * {@code docs/benchmark.md}, which {@code -Pbench} runs write, so a rerun that no longer shows them
 * fails the build until the page that states them says otherwise.
 */
class BenchmarkClaimsTests {

	private static final String HOT_KEY = "16 threads, one hot key, empty section";

	private static final String WAITERS = "64 waiters, one hot key, 1 ms section";

	/** The PostgreSQL comparison's section of the page, whose titles repeat the Redis ones. */
	private static final String ON_POSTGRES = "<!-- bench: jdbc-comparison -->";

	private static final String DISTLOCK_JDBC = "distlock PostgresLockRegistry";

	private static final List<String> JDBC_PEERS = List.of("Spring Integration JdbcLockRegistry",
			"ShedLock JdbcTemplateLockProvider (retry every 5 ms)");

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
	void onPostgresDistlockGrantsMoreThanEitherPeerButOnDistinctKeysFromSixteenThreads() {
		for (String scenario : List.of("1 thread, distinct keys", "16 threads, one hot key, 200 µs section",
				"2 JVMs × 8 threads, one hot key, 200 µs section")) {
			Map<String, Map<String, String>> table = table(onPostgres(), scenario);
			for (String peer : JDBC_PEERS) {
				assertThat(number(table, DISTLOCK_JDBC, "grants/s"))
					.as("distlock's grants/s against " + peer + "'s in '" + scenario + "' on PostgreSQL")
					.isGreaterThan(number(table, peer, "grants/s"));
			}
		}
	}

	@Test
	void onPostgresSixteenThreadsOnDistinctKeysAreGrantedLevelWithTheBestPeer() {
		Map<String, Map<String, String>> table = table(onPostgres(), "16 threads, distinct keys");
		assertThat(number(table, DISTLOCK_JDBC, "× best peer"))
			.as("distlock's ratio to the best peer in '16 threads, distinct keys' on PostgreSQL")
			.isGreaterThanOrEqualTo(0.9);
	}

	@Test
	void onPostgresAnUncontendedGrantIsTwoStatementsWhereThePeersSendSixAndFour() {
		Map<String, Map<String, String>> table = table(onPostgres(), "1 thread, distinct keys");
		assertThat(number(table, DISTLOCK_JDBC, "statements/grant")).isEqualTo(2.0);
		assertThat(number(table, JDBC_PEERS.get(0), "statements/grant")).isEqualTo(6.0);
		assertThat(number(table, JDBC_PEERS.get(1), "statements/grant")).isEqualTo(4.0);
	}

	@Test
	void onPostgresAHotKeyIsGrantedAtLeastTwiceAsOftenAsByTheBestPeerInOneJvmOrTwo() {
		for (String scenario : List.of("16 threads, one hot key, 200 µs section",
				"2 JVMs × 8 threads, one hot key, 200 µs section")) {
			assertThat(number(table(onPostgres(), scenario), DISTLOCK_JDBC, "× best peer"))
				.as("distlock's ratio to the best peer in '" + scenario + "' on PostgreSQL")
				.isGreaterThanOrEqualTo(2.0);
		}
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

	/** The page from the PostgreSQL comparison's section on, where its tables are. */
	private static String onPostgres() {
		String page = Documentation.read(Documentation.DOCS.resolve("benchmark.md"));
		assertThat(page).as("docs/benchmark.md").contains(ON_POSTGRES);
		return page.substring(page.indexOf(ON_POSTGRES));
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

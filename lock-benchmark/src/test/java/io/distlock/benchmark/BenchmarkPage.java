package io.distlock.benchmark;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Writes a benchmark run's tables into {@code docs/benchmark.md}, each between its markers
 * {@code <!-- bench: NAME -->} and {@code <!-- end bench -->}, when the run is given
 * {@code -Ddistlock.docs.update=true}: the page's figures are then that run's, never copied by
 * hand. Without the flag a run writes only under {@code target/}.
 */
final class BenchmarkPage {

	private static final Path PAGE = Path.of("..", "docs", "benchmark.md");

	private BenchmarkPage() {
	}

	/**
	 * Replace a section of the page with a run's table, if the run was asked to update the docs.
	 * @param name the section's name in its markers
	 * @param table the Markdown the run wrote
	 */
	static void publish(String name, String table) throws IOException {
		if (!Boolean.getBoolean("distlock.docs.update")) {
			return;
		}
		String page = Files.readString(PAGE);
		String start = "<!-- bench: " + name + " -->\n";
		String end = "<!-- end bench -->";
		int from = page.indexOf(start);
		int to = page.indexOf(end, from);
		if (from < 0 || to < 0) {
			throw new IllegalStateException("docs/benchmark.md has no section '" + name + "'");
		}
		Files.writeString(PAGE, page.substring(0, from + start.length()) + "\n" + table.strip() + "\n\n"
				+ page.substring(to));
	}

	/**
	 * Copy a file the run wrote under {@code target/} next to the page, if the run was asked to
	 * update the docs.
	 * @param file the file under {@code target/}
	 */
	static void copy(Path file) throws IOException {
		if (Boolean.getBoolean("distlock.docs.update")) {
			Files.copy(file, PAGE.resolveSibling(file.getFileName()), StandardCopyOption.REPLACE_EXISTING);
		}
	}

}

package io.distlock.test.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Collects the figures fault tests measure into {@code target/fault-report.md} of the module that
 * runs them, one table row per test, with the columns of the reliability page. The first row a
 * test run writes starts the file afresh, so the report is always that run's alone.
 */
public final class FaultReport {

	private static final Path FILE = Path.of("target", "fault-report.md");

	private static final String HEADER = "| test | fault | what happens, what the holder is told | measured |\n"
			+ "| --- | --- | --- | --- |\n";

	private static boolean started;

	private FaultReport() {
	}

	/**
	 * Write one row, and echo it to standard output.
	 * @param test the catalogue's test id, such as {@code T12 long}
	 * @param fault the fault injected
	 * @param outcome what happens and what the holder is told
	 * @param measured what this run measured
	 */
	public static synchronized void row(String test, String fault, String outcome, String measured) {
		String line = "| " + test + " | " + fault + " | " + outcome + " | " + measured + " |\n";
		System.out.print("FAULT-REPORT " + line);
		try {
			if (!started) {
				Files.createDirectories(FILE.getParent());
				Files.writeString(FILE, HEADER);
				started = true;
			}
			Files.writeString(FILE, line, StandardOpenOption.APPEND);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}

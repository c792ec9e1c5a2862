package io.distlock.sample.inventory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Collects the sample's fault-suite figures (T32) into {@code target/fault-report.md}, with the
 * same columns as {@code lock-test/target/fault-report.md}, so that the two tables join into the
 * README's reliability section. The sample's tests cannot see the lock-test module's test
 * classes, hence this second, identical writer.
 */
final class FaultReport {

	private static final Path FILE = Path.of("target", "fault-report.md");

	private FaultReport() {
	}

	static synchronized void row(String test, String fault, String outcome, String measured) {
		String line = "| " + test + " | " + fault + " | " + outcome + " | " + measured + " |\n";
		System.out.print("FAULT-REPORT " + line);
		try {
			if (!Files.exists(FILE)) {
				Files.createDirectories(FILE.getParent());
				Files.writeString(FILE, "| test | fault | what happens, what the holder is told | measured |\n"
						+ "| --- | --- | --- | --- |\n");
			}
			Files.writeString(FILE, line, StandardOpenOption.APPEND);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}

package io.distlock.sample.inventory;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where Chromium (or Chrome) and ChromeDriver are: {@code CHROME_BIN} and {@code CHROMEDRIVER}
 * when set (a file; {@code CHROMEWEBDRIVER}, which GitHub's runners set, is a folder holding
 * {@code chromedriver}), else the first of {@code chromium}, {@code chromium-browser},
 * {@code google-chrome}, {@code google-chrome-stable} and {@code chromedriver} on the
 * {@code PATH}.
 *
 * @param browser the browser's executable
 * @param driver ChromeDriver's executable
 */
record BrowserBinaries(Path browser, Path driver) {

	private static final List<String> BROWSERS = List.of("chromium", "chromium-browser", "google-chrome",
			"google-chrome-stable");

	static Optional<BrowserBinaries> find(Map<String, String> environment) {
		Optional<Path> browser = fromVariable(environment, "CHROME_BIN")
			.or(() -> onPath(environment, BROWSERS));
		Optional<Path> driver = fromVariable(environment, "CHROMEDRIVER")
			.or(() -> Optional.ofNullable(environment.get("CHROMEWEBDRIVER"))
				.map((folder) -> Path.of(folder, "chromedriver"))
				.filter(Files::isExecutable))
			.or(() -> onPath(environment, List.of("chromedriver")));
		return browser.flatMap((b) -> driver.map((d) -> new BrowserBinaries(b, d)));
	}

	/**
	 * Say where this looked, for the message of a skipped or failed test.
	 */
	static String whereLooked() {
		return "set CHROME_BIN and CHROMEDRIVER, or put one of " + BROWSERS
				+ " and chromedriver on the PATH (Debian: apt-get install chromium chromium-driver)";
	}

	private static Optional<Path> fromVariable(Map<String, String> environment, String name) {
		return Optional.ofNullable(environment.get(name))
			.filter((value) -> !value.isBlank())
			.map(Path::of)
			.filter(Files::isExecutable);
	}

	private static Optional<Path> onPath(Map<String, String> environment, List<String> names) {
		String path = environment.getOrDefault("PATH", "");
		List<Path> folders = new ArrayList<>();
		for (String folder : path.split(File.pathSeparator)) {
			if (!folder.isBlank()) {
				folders.add(Path.of(folder));
			}
		}
		return names.stream()
			.flatMap((name) -> folders.stream().map((folder) -> folder.resolve(name)))
			.filter(Files::isExecutable)
			.findFirst();
	}

}

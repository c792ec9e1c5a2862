package io.distlock.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The pages a user reads: {@code README.md} and every page under {@code docs/}, with paths
 * relative to the repository's root (the tests run in the {@code quickstart} folder).
 */
final class Documentation {

	static final Path ROOT = Path.of("..");

	static final Path README = ROOT.resolve("README.md");

	static final Path DOCS = ROOT.resolve("docs");

	private Documentation() {
	}

	/**
	 * Return the Markdown pages under {@code docs/}, sorted.
	 */
	static List<Path> docsPages() {
		try (Stream<Path> files = Files.list(DOCS)) {
			return files.filter((file) -> file.getFileName().toString().endsWith(".md")).sorted().toList();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Return the README and every page under {@code docs/}.
	 */
	static List<Path> allPages() {
		List<Path> pages = new ArrayList<>();
		pages.add(README);
		pages.addAll(docsPages());
		return pages;
	}

	static String read(Path file) {
		try {
			return Files.readString(file);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	static String name(Path page) {
		return ROOT.relativize(page).toString();
	}

}

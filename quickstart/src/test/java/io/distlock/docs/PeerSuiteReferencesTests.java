package io.distlock.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keeps the peer-suite pages ({@code docs/peer-suites/*.md}) true: every distlock test they name
 * in a table's last column, {@code Class#method}, or {@code #method} after a class in the same
 * cell or after the word "contract" (outside parentheses, where a remark may quote SpEL), is a
 * test method (Java or Kotlin) of that class or of a type it extends or implements (the contract's
 * tests are default methods of one interface per subject).
 */
class PeerSuiteReferencesTests {

	private static final Path PAGES = Documentation.DOCS.resolve("peer-suites");

	/** {@code `Class#method`}, or {@code `#method`} for the class named last in the cell. */
	private static final Pattern REFERENCE = Pattern.compile("`([A-Z]\\w*)?#(\\w+)`");

	/** The pages' short name for the contract every registry runs. */
	private static final Map<String, String> ALIASES = Map.of("Contract", "AbstractLockRegistryContractTests");

	/**
	 * The supertypes that a declaration at the start of a line (not an example in a comment)
	 * names after {@code extends} and {@code implements}.
	 */
	private static final Pattern SUPERTYPES = Pattern.compile("(?m)^(?:(?:public|protected|abstract|final) )*"
			+ "(?:class|interface) \\w+(?:<[^>]*>)?((?:\\s+(?:extends|implements)\\s+[\\w<>,\\s]+?)+)\\s*\\{");

	private final Map<String, Optional<Path>> sources = new HashMap<>();

	@Test
	void everyNamedTestMethodExists() throws IOException {
		List<Path> pages;
		try (Stream<Path> files = Files.list(PAGES)) {
			pages = files.filter((file) -> file.toString().endsWith(".md")).sorted().toList();
		}
		assertThat(pages).isNotEmpty();
		List<String> missing = new ArrayList<>();
		int checked = 0;
		for (Path page : pages) {
			for (String line : Documentation.read(page).lines().filter((line) -> line.startsWith("|")).toList()) {
				String[] cells = line.split("\\|");
				String cell = cells[cells.length - 1].isBlank() ? cells[cells.length - 2] : cells[cells.length - 1];
				// A remark in parentheses may quote SpEL such as `#p0`: not a test.
				cell = cell.replaceAll("\\([^)]*\\)", "");
				String current = null;
				int end = 0;
				Matcher reference = REFERENCE.matcher(cell);
				while (reference.find()) {
					if (reference.group(1) != null) {
						current = ALIASES.getOrDefault(reference.group(1), reference.group(1));
					}
					else if (cell.substring(end, reference.start()).toLowerCase(Locale.ROOT).contains("contract")) {
						// "contract `#method`": a test of the contract every registry runs.
						current = ALIASES.get("Contract");
					}
					end = reference.end();
					if (current == null || !current.endsWith("Tests")) {
						continue;
					}
					checked++;
					if (!declares(current, reference.group(2))) {
						missing.add(Documentation.name(page) + ": " + current + "#" + reference.group(2));
					}
				}
			}
		}
		assertThat(checked).as("test methods named").isGreaterThan(100);
		assertThat(missing).as("test methods named in docs/peer-suites that do not exist").isEmpty();
	}

	private boolean declares(String typeName, String method) {
		return declares(typeName, method, new HashSet<>());
	}

	private boolean declares(String typeName, String method, Set<String> visited) {
		Optional<Path> source = source(typeName);
		if (source.isEmpty() || !visited.add(typeName)) {
			return false;
		}
		String code = Documentation.read(source.get());
		if (Pattern.compile("\\b(void|fun) " + method + "\\(").matcher(code).find()) {
			return true;
		}
		Matcher supertypes = SUPERTYPES.matcher(code);
		if (!supertypes.find()) {
			return false;
		}
		String names = supertypes.group(1).replaceAll("<[^>]*>", "");
		for (String supertype : names.split("\\bextends\\b|\\bimplements\\b|,")) {
			if (!supertype.isBlank() && declares(supertype.strip(), method, visited)) {
				return true;
			}
		}
		return false;
	}

	private Optional<Path> source(String className) {
		return this.sources.computeIfAbsent(className, (name) -> {
			try (Stream<Path> files = Files.walk(Documentation.ROOT)) {
				return files.filter((file) -> file.getFileName().toString().equals(name + ".java")
						|| file.getFileName().toString().equals(name + ".kt"))
					.filter((file) -> !file.toString().contains("/target/"))
					.findFirst();
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		});
	}

}

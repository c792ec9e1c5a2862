package io.distlock.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The reading times of {@code docs/README.md} are counted, not guessed: a page's words (split on
 * white space, code and tables included) at 200 a minute, rounded up; the "per peer page" range
 * over {@code docs/peer-suites/}; and the adopter's total, the sum of the first rows it names.
 * With {@code -Ddistlock.docs.update=true} the index is rewritten with the counted times instead.
 */
class ReadingTimesTests {

	private static final Path INDEX = Documentation.DOCS.resolve("README.md");

	private static final Pattern ROW = Pattern.compile("^\\|.*\\]\\(([^)#]+\\.md)\\) \\| (\\d+) min(?:, and (\\d+) to (\\d+) min per peer page)? \\|$");

	private static final Pattern TOTAL = Pattern.compile("needs the first (\\w+) lines: about\\s+(\\d+) minutes in all");

	private static final List<String> NUMBERS = List.of("zero", "one", "two", "three", "four", "five", "six", "seven",
			"eight", "nine", "ten");

	@Test
	void everyReadingTimeIsItsPagesWordsAt200AMinute() {
		List<String> wrong = new ArrayList<>();
		int rows = 0;
		for (String line : Documentation.read(INDEX).lines().toList()) {
			Matcher row = ROW.matcher(line);
			if (!row.matches()) {
				continue;
			}
			rows++;
			Path page = INDEX.getParent().resolve(row.group(1)).normalize();
			int minutes = minutes(page);
			if (minutes != Integer.parseInt(row.group(2))) {
				wrong.add(row.group(1) + ": " + row.group(2) + " min on the index, " + minutes + " min counted");
			}
			if (row.group(3) != null) {
				List<Integer> peerPages = peerPageMinutes(page);
				String counted = peerPages.get(0) + " to " + peerPages.get(peerPages.size() - 1);
				if (!counted.equals(row.group(3) + " to " + row.group(4))) {
					wrong.add(row.group(1) + " per peer page: " + row.group(3) + " to " + row.group(4) + " on the index, "
							+ counted + " counted");
				}
			}
		}
		assertThat(rows).as("rows with a reading time in docs/README.md").isGreaterThanOrEqualTo(20);
		if (ReportSection.updating()) {
			rewrite();
			return;
		}
		assertThat(wrong).as("reading times in docs/README.md that differ from the count (rewrite them with -D"
				+ ReportSection.UPDATE_PROPERTY + "=true)").isEmpty();
	}

	@Test
	void theAdoptersTotalIsTheSumOfItsRows() {
		if (ReportSection.updating()) {
			return; // the other test rewrites the total with the times
		}
		String index = Documentation.read(INDEX);
		Matcher total = TOTAL.matcher(index);
		assertThat(total.find()).as("the adopter's total in docs/README.md").isTrue();
		int count = NUMBERS.indexOf(total.group(1));
		List<Integer> first = new ArrayList<>();
		for (String line : index.lines().toList()) {
			Matcher row = ROW.matcher(line);
			if (row.matches() && first.size() < count) {
				first.add(Integer.parseInt(row.group(2)));
			}
		}
		assertThat(first).hasSize(count);
		assertThat(Integer.parseInt(total.group(2))).as("the sum of the first " + count + " reading times")
			.isEqualTo(first.stream().mapToInt(Integer::intValue).sum());
	}

	/**
	 * Write the counted times into the index, then the adopter's total.
	 */
	private static void rewrite() {
		List<String> lines = new ArrayList<>();
		for (String line : Documentation.read(INDEX).lines().toList()) {
			Matcher row = ROW.matcher(line);
			if (row.matches()) {
				Path page = INDEX.getParent().resolve(row.group(1)).normalize();
				String counted = minutes(page) + " min";
				if (row.group(3) != null) {
					List<Integer> peerPages = peerPageMinutes(page);
					counted += ", and " + peerPages.get(0) + " to " + peerPages.get(peerPages.size() - 1) + " min per peer page";
				}
				line = line.substring(0, row.start(2)) + counted + " |";
			}
			lines.add(line);
		}
		String index = String.join("\n", lines) + "\n";
		Matcher total = TOTAL.matcher(index);
		if (total.find()) {
			int count = NUMBERS.indexOf(total.group(1));
			int sum = 0;
			int seen = 0;
			for (String line : lines) {
				Matcher row = ROW.matcher(line);
				if (row.matches() && seen++ < count) {
					sum += Integer.parseInt(row.group(2));
				}
			}
			index = index.substring(0, total.start(2)) + sum + index.substring(total.end(2));
		}
		try {
			Files.writeString(INDEX, index);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	@Test
	void aPageOf201WordsTakesTwoMinutes() {
		// The negative control of the count: one word past a minute's worth is a second minute.
		assertThat(minutes("word ".repeat(200))).isEqualTo(1);
		assertThat(minutes("word ".repeat(201))).isEqualTo(2);
		assertThat(ROW.matcher("| what | [a.md](a.md) | 3 min |").matches()).isTrue();
	}

	private static int minutes(Path page) {
		return minutes(Documentation.read(page));
	}

	private static int minutes(String text) {
		String trimmed = text.strip();
		int words = trimmed.isEmpty() ? 0 : trimmed.split("\\s+").length;
		return (words + 199) / 200;
	}

	private static List<Integer> peerPageMinutes(Path peerSuitesPage) {
		Path folder = peerSuitesPage.resolveSibling(peerSuitesPage.getFileName().toString().replace(".md", ""));
		try (Stream<Path> files = Files.list(folder)) {
			return files.filter((file) -> file.toString().endsWith(".md")).map(ReadingTimesTests::minutes).sorted().toList();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}

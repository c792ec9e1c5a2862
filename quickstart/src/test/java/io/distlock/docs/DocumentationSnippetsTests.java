package io.distlock.docs;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keeps the code in the README and in {@code docs/} true: every Java, Kotlin, XML or YAML block names
 * the file it is cut from ({@code <!-- source: quickstart/pom.xml#starter -->} on the line before
 * it), that file is compiled and run by this build, and the block must equal the file's region
 * character for character. A block that is not cut from a file says so
 * ({@code <!-- not-a-source: why -->}).
 */
class DocumentationSnippetsTests {

	@Test
	void everyBlockAUserCopiesNamesItsSource() {
		List<String> unmarked = new ArrayList<>();
		for (Path page : Documentation.allPages()) {
			for (CodeBlock block : CodeBlock.parse(Documentation.read(page))) {
				if (block.mustBeSourced() && !block.isSourced() && !block.isNotASource()) {
					unmarked.add(Documentation.name(page) + ":" + block.line() + " (" + block.language() + ")");
				}
			}
		}
		assertThat(unmarked).as("code blocks without <!-- source: path#tag --> or <!-- not-a-source: why -->")
			.isEmpty();
	}

	@Test
	void everySourcedBlockEqualsItsSource() {
		List<String> drifted = new ArrayList<>();
		int checked = 0;
		for (Path page : Documentation.allPages()) {
			for (CodeBlock block : CodeBlock.parse(Documentation.read(page))) {
				if (block.isSourced()) {
					checked++;
					String problem = compare(block);
					if (problem != null) {
						drifted.add(Documentation.name(page) + ":" + block.line() + " " + problem);
					}
				}
			}
		}
		assertThat(checked).as("sourced blocks").isGreaterThanOrEqualTo(5);
		assertThat(drifted).as("code blocks that differ from their source").isEmpty();
	}

	@Test
	void theQuickStartShowsTheWholeApplication() {
		List<String> sources = CodeBlock.parse(Documentation.read(Documentation.README))
			.stream()
			.filter(CodeBlock::isSourced)
			.map((block) -> block.sourcePath() + ((block.sourceTag() != null) ? "#" + block.sourceTag() : ""))
			.toList();
		assertThat(sources).contains("quickstart/pom.xml#starter", "quickstart/pom.xml#actuator",
				"quickstart/src/main/java/com/example/inventory/InventoryApplication.java",
				"quickstart/src/main/java/com/example/inventory/InventoryService.java",
				"quickstart/src/main/resources/application.yml");
	}

	@Test
	void aDriftedBlockIsFound() {
		// The negative control: the comparison fires when a block and its source differ.
		String page = """
				<!-- source: quickstart/src/main/resources/application.yml -->
				```yaml
				distlock:
				  wait-time: 1s
				```
				""";
		CodeBlock block = CodeBlock.parse(page).get(0);
		assertThat(compare(block)).contains("differs from quickstart/src/main/resources/application.yml");
		String unmarked = "```java\nclass A {}\n```\n";
		assertThat(CodeBlock.parse(unmarked).get(0).isSourced()).isFalse();
	}

	@Test
	void regionsAreCutWithoutMarkersAndIndentation() {
		String source = "class A {\n\tvoid a() {\n\t\t// tag::body[]\n\t\tint x = 1;\n\t\t\tx++;\n\t\t// end::body[]\n\t}\n}\n";
		assertThat(SourceRegion.cut(source, "body")).isEqualTo("int x = 1;\n    x++;");
	}

	private static String compare(CodeBlock block) {
		Path source = Documentation.ROOT.resolve(block.sourcePath());
		if (!Files.isRegularFile(source)) {
			return "names '" + block.sourcePath() + "', which does not exist";
		}
		String expected;
		try {
			expected = SourceRegion.cut(Documentation.read(source), block.sourceTag());
		}
		catch (IllegalArgumentException ex) {
			return "names '" + block.sourcePath() + "#" + block.sourceTag() + "': " + ex.getMessage();
		}
		if (!expected.equals(block.text())) {
			return "differs from " + block.sourcePath() + ((block.sourceTag() != null) ? "#" + block.sourceTag() : "")
					+ "; it should read:\n" + expected;
		}
		return null;
	}

}

package io.distlock.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keeps the configuration reference ({@code docs/configuration.md}) true: every property in the
 * generated configuration metadata has a row there, with its default.
 */
class ConfigurationReferenceTests {

	@Test
	void everyPropertyIsDocumentedWithItsDefault() throws IOException {
		String reference = Files.readString(Path.of("..", "docs", "configuration.md"));
		List<Map<String, Object>> properties = JsonPath.read(metadata(), "$.properties[*]");
		assertThat(properties).hasSizeGreaterThanOrEqualTo(10);
		for (Map<String, Object> property : properties) {
			String name = (String) property.get("name");
			String row = reference.lines()
				.filter((line) -> line.startsWith("| `" + name + "` |"))
				.findFirst()
				.orElseThrow(() -> new AssertionError("docs/configuration.md has no row for '" + name + "'"));
			Object defaultValue = property.get("defaultValue");
			if (defaultValue != null) {
				assertThat(row).as("default of " + name).contains("`" + defaultValue + "`");
			}
		}
	}

	@Test
	void theReadmesShortTableNamesPropertiesWithTheirDefaults() throws IOException {
		String readme = Files.readString(Path.of("..", "README.md"));
		int section = readme.indexOf("## Properties you will touch");
		assertThat(section).as("README.md section 'Properties you will touch'").isNotNegative();
		List<String> rows = readme.substring(section, readme.indexOf("\n## ", section + 1))
			.lines()
			.filter((line) -> line.startsWith("| `"))
			.toList();
		assertThat(rows).isNotEmpty();
		List<Map<String, Object>> properties = JsonPath.read(metadata(), "$.properties[*]");
		for (String row : rows) {
			String name = row.substring(3, row.indexOf('`', 3));
			Map<String, Object> property = properties.stream()
				.filter((candidate) -> name.equals(candidate.get("name")))
				.findFirst()
				.orElseThrow(() -> new AssertionError("README.md names '" + name + "', which is not a property"));
			Object defaultValue = property.get("defaultValue");
			if (defaultValue != null) {
				assertThat(row).as("README default of " + name).contains("`" + defaultValue + "`");
			}
		}
	}

	private static String metadata() throws IOException {
		try (InputStream in = ConfigurationReferenceTests.class
			.getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
			assertThat(in).as("generated configuration metadata").isNotNull();
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
	}

}

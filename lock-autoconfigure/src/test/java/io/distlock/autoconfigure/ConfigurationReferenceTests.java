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

	private static String metadata() throws IOException {
		try (InputStream in = ConfigurationReferenceTests.class
			.getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
			assertThat(in).as("generated configuration metadata").isNotNull();
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
	}

}

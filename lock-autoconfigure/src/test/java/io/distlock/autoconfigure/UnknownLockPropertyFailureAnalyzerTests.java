package io.distlock.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * A misspelt {@code distlock.*} property stops startup, and the analysis names the property that
 * was meant.
 */
@ExtendWith(OutputCaptureExtension.class)
class UnknownLockPropertyFailureAnalyzerTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withUserConfiguration(PropertiesOnly.class);

	@Test
	void aMisspeltPropertyIsAnsweredWithTheOneMeant() {
		FailureAnalysis analysis = analyze("distlock.wiat-time=2s");
		assertThat(analysis.getDescription()).contains("Property: distlock.wiat-time").contains("Value: \"2s\"");
		assertThat(analysis.getAction()).startsWith("Replace 'distlock.wiat-time' with 'distlock.wait-time'.");
	}

	@Test
	void aMisspeltNestedPropertyIsAnsweredWithTheOneMeant() {
		assertThat(analyze("distlock.local-handof.max-time=20ms").getAction())
			.startsWith("Replace 'distlock.local-handof.max-time' with 'distlock.local-handoff.max-time'.");
		assertThat(analyze("distlock.redlock.node=redis://a:1").getAction())
			.startsWith("Replace 'distlock.redlock.node' with 'distlock.redlock.nodes'.");
	}

	@Test
	void aPropertyNothingLikeAKnownOneIsToBeRemoved() {
		assertThat(analyze("distlock.colour=blue").getAction()).startsWith("Remove 'distlock.colour'.");
	}

	@Test
	void everyPropertyOfTheMetadataIsKnown() throws IOException {
		List<String> names = JsonPath.read(metadata(), "$.properties[*].name");
		List<String> distlock = names.stream().filter((name) -> name.startsWith("distlock.")).toList();
		assertThat(distlock).hasSizeGreaterThanOrEqualTo(20);
		for (String name : distlock) {
			assertThat(UnknownLockPropertyFailureAnalyzer.closest(name)).as(name).isEqualTo(name);
		}
	}

	@Test
	void theAnalysisIsWhatAnApplicationReports(CapturedOutput output) {
		SpringApplication application = new SpringApplication(PropertiesOnly.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		assertThatException().isThrownBy(() -> application.run("--distlock.wiat-time=2s"));
		assertThat(output).contains("Unknown distlock properties:")
			.contains("Replace 'distlock.wiat-time' with 'distlock.wait-time'.");
	}

	private FailureAnalysis analyze(String property) {
		FailureAnalysis[] analysis = new FailureAnalysis[1];
		this.runner.withPropertyValues(property).run((context) -> {
			assertThat(context).hasFailed();
			analysis[0] = new UnknownLockPropertyFailureAnalyzer().analyze(context.getStartupFailure());
		});
		assertThat(analysis[0]).isNotNull();
		return analysis[0];
	}

	private static String metadata() throws IOException {
		try (InputStream in = UnknownLockPropertyFailureAnalyzerTests.class
			.getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
			assertThat(in).as("generated configuration metadata").isNotNull();
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
	}

	@Configuration(proxyBeanMethods = false)
	@EnableConfigurationProperties(DistlockProperties.class)
	static class PropertiesOnly {

	}

}

package io.distlock.sample.inventory;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.awaitility.Awaitility.await;

/**
 * The sample application running in a JVM of its own, as a user runs it with {@code java -jar};
 * or as Spring AOT processed it at build time, started with {@code -Dspring.aot.enabled=true}:
 * what a user gets from {@code java -Dspring.aot.enabled=true -jar}. Its classpath is the application's runtime
 * classpath (as the build wrote it), not the tests' one, so nothing from the test scope helps it
 * start. Its output goes to a log file, which is also how it tells its HTTP port.
 */
final class InventoryProcess {

	/** Set by this module's surefire configuration: the classes, AOT-generated ones included. */
	static final String CLASSES_PROPERTY = "inventory.aot.classes";

	/** Set by this module's surefire configuration: a file with the runtime classpath. */
	static final String CLASSPATH_PROPERTY = "inventory.aot.runtime-classpath";

	private static final Pattern PORT = Pattern.compile("Tomcat started on port (\\d+)");

	private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

	private final Process process;

	private final Path log;

	private final int port;

	private InventoryProcess(Process process, Path log, int port) {
		this.process = process;
		this.log = log;
		this.port = port;
	}

	/**
	 * Start the application in AOT mode and wait until its web server listens.
	 * @param log the file the application's output goes to
	 * @param arguments the application's arguments
	 * @return the running application
	 */
	static InventoryProcess startAot(Path log, String... arguments) throws IOException {
		return start(true, log, arguments);
	}

	/**
	 * Start the application and wait until its web server listens.
	 * @param log the file the application's output goes to
	 * @param arguments the application's arguments
	 * @return the running application
	 */
	static InventoryProcess start(Path log, String... arguments) throws IOException {
		return start(false, log, arguments);
	}

	private static InventoryProcess start(boolean aot, Path log, String... arguments) throws IOException {
		String classes = required(CLASSES_PROPERTY);
		String classpath = Files.readString(Path.of(required(CLASSPATH_PROPERTY)), StandardCharsets.UTF_8).strip();
		List<String> command = new ArrayList<>();
		command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
		if (aot) {
			command.add("-Dspring.aot.enabled=true");
		}
		command.add("-Xmx512m");
		command.add("-cp");
		command.add(classes + File.pathSeparator + classpath);
		command.add(InventoryApplication.class.getName());
		command.addAll(List.of(arguments));
		Files.createDirectories(log.getParent());
		Process process = new ProcessBuilder(command).redirectErrorStream(true)
			.redirectOutput(log.toFile())
			.start();
		try {
			int port = await().atMost(START_TIMEOUT).pollInterval(Duration.ofMillis(200)).until(() -> {
				String output = Files.readString(log, StandardCharsets.UTF_8);
				if (!process.isAlive()) {
					throw new IllegalStateException("The sample exited with " + process.exitValue()
							+ " before it listened; its output (" + log + "):\n" + output);
				}
				Matcher matcher = PORT.matcher(output);
				return matcher.find() ? Integer.parseInt(matcher.group(1)) : 0;
			}, (found) -> found > 0);
			return new InventoryProcess(process, log, port);
		}
		catch (RuntimeException | Error ex) {
			process.destroyForcibly();
			throw ex;
		}
	}

	private static String required(String property) {
		String value = System.getProperty(property);
		if (value == null) {
			throw new IllegalStateException("System property '" + property + "' is not set: run this test through "
					+ "Maven (./mvnw -pl sample-inventory-app -am verify), which runs spring-boot:process-aot "
					+ "and writes the runtime classpath first");
		}
		return value;
	}

	/**
	 * Return the application's base URL.
	 * @return {@code http://localhost:<port>}
	 */
	String url() {
		return "http://localhost:" + this.port;
	}

	/**
	 * Return what the application has written so far.
	 * @return its standard output and error
	 */
	String output() throws IOException {
		return Files.readString(this.log, StandardCharsets.UTF_8);
	}

	/**
	 * Stop the application, gracefully if it stops within 30 seconds.
	 */
	void stop() throws InterruptedException {
		// SIGTERM first: Boot's shutdown hook closes the context, and with it the lock registry.
		this.process.destroy();
		if (!this.process.waitFor(30, TimeUnit.SECONDS)) {
			this.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
		}
	}

}

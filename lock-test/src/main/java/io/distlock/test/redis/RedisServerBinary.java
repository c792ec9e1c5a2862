package io.distlock.test.redis;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Finds a {@code redis-server} executable: the one named by the {@code distlock.redis-server}
 * system property or the {@code DISTLOCK_REDIS_SERVER} environment variable, else the one on
 * the {@code PATH}, else the binary bundled in {@code com.github.codemonstur:embedded-redis},
 * extracted once to the temporary directory.
 *
 * @param path the executable
 * @param version the version it reports, such as {@code 7.0.15}
 */
public record RedisServerBinary(Path path, String version) {

	private static volatile RedisServerBinary located;

	/**
	 * Return the executable to use, looking it up once per JVM.
	 * @return the binary
	 * @throws IllegalStateException if no binary can run on this platform
	 */
	public static RedisServerBinary locate() {
		RedisServerBinary binary = located;
		if (binary == null) {
			Path path = explicitPath();
			if (path == null) {
				path = onPath();
			}
			if (path == null) {
				path = extractBundled();
			}
			binary = new RedisServerBinary(path, versionOf(path));
			located = binary;
		}
		return binary;
	}

	/**
	 * Return the major version, such as 6 or 7.
	 * @return the major version
	 */
	public int majorVersion() {
		int dot = this.version.indexOf('.');
		return Integer.parseInt((dot > 0) ? this.version.substring(0, dot) : this.version);
	}

	private static Path explicitPath() {
		String configured = System.getProperty("distlock.redis-server", System.getenv("DISTLOCK_REDIS_SERVER"));
		if (configured == null || configured.isBlank()) {
			return null;
		}
		Path path = Path.of(configured);
		if (!Files.isExecutable(path)) {
			throw new IllegalStateException("redis-server '" + configured + "' (from distlock.redis-server or "
					+ "DISTLOCK_REDIS_SERVER) is not an executable file");
		}
		return path;
	}

	private static Path onPath() {
		String pathVariable = System.getenv("PATH");
		if (pathVariable == null) {
			return null;
		}
		for (String directory : pathVariable.split(File.pathSeparator)) {
			Path candidate = Path.of(directory, "redis-server");
			if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
				return candidate;
			}
		}
		return null;
	}

	private static Path extractBundled() {
		String resource = bundledResource();
		Path target = Path.of(System.getProperty("java.io.tmpdir"), "distlock-redis", resource);
		try (InputStream in = RedisServerBinary.class.getResourceAsStream("/" + resource)) {
			if (in == null) {
				throw new IllegalStateException("No redis-server on the PATH and embedded-redis bundles no '" + resource
						+ "'; install redis-server or set DISTLOCK_REDIS_SERVER");
			}
			byte[] content = in.readAllBytes();
			if (Files.isExecutable(target) && Files.size(target) == content.length) {
				return target;
			}
			Files.createDirectories(target.getParent());
			// Another JVM may extract at the same time: write aside, then move into place.
			Path partial = Files.createTempFile(target.getParent(), resource, ".part");
			Files.write(partial, content);
			partial.toFile().setExecutable(true);
			Files.move(partial, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
			return target;
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not extract the bundled redis-server to '" + target + "'", ex);
		}
	}

	private static String bundledResource() {
		String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
		String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
		boolean arm = arch.contains("aarch64") || arch.contains("arm64");
		if (os.contains("mac")) {
			return arm ? "redis-server-6.2.6-v5-darwin-arm64" : "redis-server-6.2.6-v5-darwin-amd64";
		}
		if (os.contains("linux")) {
			if (arm) {
				return "redis-server-6.2.7-linux-arm64";
			}
			return (arch.contains("64")) ? "redis-server-6.2.6-v5-linux-amd64" : "redis-server-6.2.7-linux-386";
		}
		throw new IllegalStateException("No bundled redis-server for '" + os + "/" + arch
				+ "'; install redis-server or set DISTLOCK_REDIS_SERVER");
	}

	private static String versionOf(Path path) {
		try {
			Process process = new ProcessBuilder(path.toString(), "--version").redirectErrorStream(true).start();
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			if (!process.waitFor(10, TimeUnit.SECONDS)) {
				process.destroyForcibly();
			}
			int start = output.indexOf("v=");
			if (start < 0) {
				throw new IllegalStateException("Cannot read the version of '" + path + "' from: " + output.trim());
			}
			int end = output.indexOf(' ', start);
			return output.substring(start + 2, (end > 0) ? end : output.length()).trim();
		}
		catch (IOException ex) {
			throw new IllegalStateException("Cannot run '" + path + "' (a missing OpenSSL 3 library?)", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while reading the version of '" + path + "'", ex);
		}
	}

}

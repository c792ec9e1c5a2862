package io.distlock.interceptor;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.distlock.annotation.DistributedLock;
import io.distlock.core.LockConfigurationException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A class compiled without {@code -parameters} (a Maven build without
 * {@code spring-boot-starter-parent}, which sets it) has no parameter names at run time: a key
 * that names a parameter fails at startup saying so and what to do, and a positional key works.
 * The class is compiled here, as this build compiles everything with {@code -parameters}.
 */
class MissingParameterNamesTests {

	private static final String SOURCE = """
			package lockless;

			import io.distlock.annotation.DistributedLock;

			public class Reservations {

				@DistributedLock(key = "'stock:' + #productId")
				public void byName(long productId) {
				}

				@DistributedLock(key = "'stock:' + #p0")
				public void byPosition(long productId) {
				}

			}
			""";

	@TempDir
	Path classes;

	@Test
	void aKeyNamingAParameterFailsAtStartupSayingHowToCompile() throws Exception {
		Class<?> type = compileWithoutParameterNames();
		Method method = type.getMethod("byName", long.class);
		assertThat(method.getParameters()[0].isNamePresent()).as("compiled without -parameters").isFalse();
		assertThatExceptionOfType(LockConfigurationException.class)
			.isThrownBy(() -> new LockDefinitions().find(method, type))
			.withMessage("@DistributedLock on Reservations.byName(long): attribute 'key' value ''stock:' + #productId' "
					+ "refers to '#productId', which is not a parameter of the method (parameter names are not "
					+ "available: compile with -parameters or use #p0)");
	}

	@Test
	void aPositionalKeyNeedsNoParameterNames() throws Exception {
		Class<?> type = compileWithoutParameterNames();
		LockDefinition definition = new LockDefinitions().find(type.getMethod("byPosition", long.class), type);
		assertThat(definition.keySources()).containsExactly("'stock:' + #p0");
	}

	private Class<?> compileWithoutParameterNames() throws IOException, ClassNotFoundException {
		Path source = this.classes.resolve("lockless/Reservations.java");
		Files.createDirectories(source.getParent());
		Files.writeString(source, SOURCE);
		JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
		int status = compiler.run(null, null, null, List.of("-classpath", distlockCore(), "-d",
				this.classes.toString(), source.toString()).toArray(String[]::new));
		assertThat(status).as("javac exit status").isZero();
		URLClassLoader loader = new URLClassLoader(new URL[] { this.classes.toUri().toURL() },
				getClass().getClassLoader());
		return loader.loadClass("lockless.Reservations");
	}

	private static String distlockCore() {
		try {
			return Path.of(DistributedLock.class.getProtectionDomain().getCodeSource().getLocation().toURI())
				.toString();
		}
		catch (URISyntaxException ex) {
			throw new UncheckedIOException(new IOException(ex));
		}
	}

}

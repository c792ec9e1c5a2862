package io.distlock.fencing;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import javax.sql.DataSource;

import org.mariadb.jdbc.MariaDbDataSource;

import static org.awaitility.Awaitility.await;

/**
 * A real MariaDB server for the tests, started from Debian's {@code mariadb-server} package
 * ({@code mariadbd}, {@code mariadb-install-db}) in a temporary data directory on a free port,
 * with a user {@code fence} (password {@code fence}) and a database {@code fence}. Stopped and
 * deleted by {@link #close()}.
 */
final class MariaDbServer implements AutoCloseable {

	private static final List<Path> SERVER_PLACES = List.of(Path.of("/usr/sbin/mariadbd"), Path.of("/usr/bin/mariadbd"));

	private static final List<Path> INSTALL_PLACES = List.of(Path.of("/usr/bin/mariadb-install-db"),
			Path.of("/usr/sbin/mariadb-install-db"));

	private final Process process;

	private final Path directory;

	private final int port;

	private MariaDbServer(Process process, Path directory, int port) {
		this.process = process;
		this.directory = directory;
		this.port = port;
	}

	/**
	 * Return where the server binaries are, if installed.
	 * @return {@code mariadbd} and {@code mariadb-install-db}
	 */
	static Optional<List<Path>> binaries() {
		Optional<Path> server = SERVER_PLACES.stream().filter(Files::isExecutable).findFirst();
		Optional<Path> install = INSTALL_PLACES.stream().filter(Files::isExecutable).findFirst();
		return (server.isPresent() && install.isPresent()) ? Optional.of(List.of(server.get(), install.get()))
				: Optional.empty();
	}

	static String whereLooked() {
		return "mariadbd in " + SERVER_PLACES + " and mariadb-install-db in " + INSTALL_PLACES
				+ " (Debian: apt-get install mariadb-server)";
	}

	static MariaDbServer start(List<Path> binaries) throws IOException, InterruptedException {
		Path directory = Files.createTempDirectory("distlock-mariadb-");
		Path data = directory.resolve("data");
		Path log = directory.resolve("server.log");
		Path init = directory.resolve("init.sql");
		Files.writeString(init, "CREATE DATABASE IF NOT EXISTS fence;\n"
				+ "CREATE USER IF NOT EXISTS 'fence'@'127.0.0.1' IDENTIFIED BY 'fence';\n"
				+ "GRANT ALL ON fence.* TO 'fence'@'127.0.0.1';\n", StandardCharsets.UTF_8);
		Process install = new ProcessBuilder(binaries.get(1).toString(), "--no-defaults", "--datadir=" + data,
				"--user=" + System.getProperty("user.name"), "--auth-root-authentication-method=socket",
				"--skip-test-db")
			.redirectErrorStream(true)
			.redirectOutput(directory.resolve("install.log").toFile())
			.start();
		if (!install.waitFor(120, TimeUnit.SECONDS) || install.exitValue() != 0) {
			throw new IllegalStateException("mariadb-install-db failed; see " + directory.resolve("install.log"));
		}
		int port = freePort();
		List<String> command = new ArrayList<>(List.of(binaries.get(0).toString(), "--no-defaults",
				"--datadir=" + data, "--port=" + port, "--bind-address=127.0.0.1", "--skip-name-resolve",
				"--socket=" + directory.resolve("mysqld.sock"), "--pid-file=" + directory.resolve("mysqld.pid"),
				"--log-error=" + log, "--init-file=" + init, "--user=" + System.getProperty("user.name"),
				"--innodb-buffer-pool-size=32M", "--skip-log-bin"));
		Process process = new ProcessBuilder(command).redirectErrorStream(true)
			.redirectOutput(directory.resolve("stdout.log").toFile())
			.start();
		MariaDbServer server = new MariaDbServer(process, directory, port);
		try {
			await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> {
				if (!process.isAlive()) {
					throw new IllegalStateException("mariadbd exited with " + process.exitValue() + "; its log ("
							+ log + "):\n" + (Files.exists(log) ? Files.readString(log) : ""));
				}
				try (Connection connection = DriverManager.getConnection(server.jdbcUrl(), "fence", "fence")) {
					return connection.isValid(1);
				}
				catch (SQLException ex) {
					return false;
				}
			});
			return server;
		}
		catch (RuntimeException | Error ex) {
			server.close();
			throw ex;
		}
	}

	String jdbcUrl() {
		return "jdbc:mariadb://127.0.0.1:" + this.port + "/fence";
	}

	DataSource dataSource() throws SQLException {
		MariaDbDataSource dataSource = new MariaDbDataSource(jdbcUrl());
		dataSource.setUser("fence");
		dataSource.setPassword("fence");
		return dataSource;
	}

	@Override
	public void close() throws IOException, InterruptedException {
		this.process.destroy();
		if (!this.process.waitFor(30, TimeUnit.SECONDS)) {
			this.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
		}
		try (Stream<Path> files = Files.walk(this.directory)) {
			files.sorted(Comparator.reverseOrder()).forEach((file) -> file.toFile().delete());
		}
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

}

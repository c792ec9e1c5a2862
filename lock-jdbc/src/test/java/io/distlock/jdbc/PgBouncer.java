package io.distlock.jdbc;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import org.postgresql.ds.PGSimpleDataSource;

/**
 * Debian's {@code pgbouncer} in transaction mode in front of a PostgreSQL server, on a free port,
 * run as the {@code postgres} user (it refuses root). Server-side prepared statements are off in
 * the client ({@code prepareThreshold=0}), as pgbouncer before 1.21 needs in transaction mode.
 */
final class PgBouncer implements AutoCloseable {

	static final Path BINARY = Path.of("/usr/sbin/pgbouncer");

	private final Process process;

	private final Path directory;

	private final int port;

	private PgBouncer(Process process, Path directory, int port) {
		this.process = process;
		this.directory = directory;
		this.port = port;
	}

	static PgBouncer start(int serverPort) throws IOException, InterruptedException {
		Path directory = Files.createTempDirectory("distlock-pgbouncer");
		int port;
		try (ServerSocket socket = new ServerSocket(0)) {
			port = socket.getLocalPort();
		}
		Path config = directory.resolve("pgbouncer.ini");
		Files.writeString(config, """
				[databases]
				postgres = host=127.0.0.1 port=%d dbname=postgres user=postgres
				[pgbouncer]
				listen_addr = 127.0.0.1
				listen_port = %d
				unix_socket_dir =
				auth_type = trust
				auth_file = %s
				pool_mode = transaction
				default_pool_size = 10
				max_client_conn = 200
				logfile = %s
				""".formatted(serverPort, port, directory.resolve("users.txt"), directory.resolve("pgbouncer.log")));
		Files.writeString(directory.resolve("users.txt"), "\"postgres\" \"\"\n");
		new ProcessBuilder("chown", "-R", "postgres", directory.toString()).start().waitFor(10, TimeUnit.SECONDS);
		Process process = new ProcessBuilder("runuser", "-u", "postgres", "--", BINARY.toString(), config.toString())
			.redirectErrorStream(true)
			.redirectOutput(directory.resolve("stdout.log").toFile())
			.start();
		PgBouncer bouncer = new PgBouncer(process, directory, port);
		bouncer.awaitListening();
		return bouncer;
	}

	private void awaitListening() throws IOException, InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (System.nanoTime() < deadline) {
			try (Socket socket = new Socket("127.0.0.1", this.port)) {
				return;
			}
			catch (IOException ex) {
				if (!this.process.isAlive()) {
					throw new IllegalStateException("pgbouncer exited: " + Files.readString(this.directory.resolve("stdout.log")));
				}
				Thread.sleep(50);
			}
		}
		throw new IllegalStateException("pgbouncer did not listen on port " + this.port);
	}

	DataSource dataSource() {
		PGSimpleDataSource dataSource = new PGSimpleDataSource();
		dataSource.setServerNames(new String[] { "127.0.0.1" });
		dataSource.setPortNumbers(new int[] { this.port });
		dataSource.setDatabaseName("postgres");
		dataSource.setUser("postgres");
		dataSource.setPrepareThreshold(0);
		return dataSource;
	}

	@Override
	public void close() throws IOException, InterruptedException {
		// The pgbouncer process is a child of runuser: end both, by their ids.
		for (ProcessHandle child : this.process.descendants().toList()) {
			child.destroy();
		}
		this.process.destroy();
		this.process.waitFor(10, TimeUnit.SECONDS);
		try (var files = Files.walk(this.directory)) {
			files.sorted(java.util.Comparator.reverseOrder()).forEach((file) -> file.toFile().delete());
		}
	}

	static List<String> unavailableReason() {
		return Files.isExecutable(BINARY) ? List.of() : List.of("Debian's pgbouncer is not installed at " + BINARY);
	}

}

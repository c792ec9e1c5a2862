package io.distlock.jdbc;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import org.postgresql.ds.PGSimpleDataSource;

/**
 * A PostgreSQL server from Debian's package ({@code /usr/lib/postgresql/<version>/bin}), started
 * on a free port in a data directory of its own as the {@code postgres} user (PostgreSQL refuses
 * to run as root), with trust authentication on the loopback interface.
 */
final class DebianPostgres implements AutoCloseable {

	private final Path bin;

	private final Path dataDirectory;

	private final int port;

	private DebianPostgres(Path bin, Path dataDirectory, int port) {
		this.bin = bin;
		this.dataDirectory = dataDirectory;
		this.port = port;
	}

	static DebianPostgres start(Path bin) throws IOException, InterruptedException {
		Path dataDirectory = Files.createTempDirectory("distlock-debian-pg");
		run(List.of("chown", "postgres", dataDirectory.toString()));
		int port;
		try (ServerSocket socket = new ServerSocket(0)) {
			port = socket.getLocalPort();
		}
		DebianPostgres server = new DebianPostgres(bin, dataDirectory, port);
		server.asPostgres(List.of(bin.resolve("initdb").toString(), "-D", dataDirectory.toString(), "-A", "trust",
				"-U", "postgres"));
		server.asPostgres(List.of(bin.resolve("pg_ctl").toString(), "-D", dataDirectory.toString(), "-w", "-l",
				dataDirectory.resolve("server.log").toString(), "-o",
				"-p " + port + " -k " + dataDirectory + " -c listen_addresses=127.0.0.1", "start"));
		return server;
	}

	DataSource dataSource() {
		PGSimpleDataSource dataSource = new PGSimpleDataSource();
		dataSource.setServerNames(new String[] { "127.0.0.1" });
		dataSource.setPortNumbers(new int[] { this.port });
		dataSource.setDatabaseName("postgres");
		dataSource.setUser("postgres");
		return dataSource;
	}

	@Override
	public void close() throws IOException, InterruptedException {
		asPostgres(List.of(this.bin.resolve("pg_ctl").toString(), "-D", this.dataDirectory.toString(), "-w", "-m",
				"fast", "stop"));
		run(List.of("rm", "-rf", this.dataDirectory.toString()));
	}

	private void asPostgres(List<String> command) throws IOException, InterruptedException {
		List<String> full = new ArrayList<>(List.of("runuser", "-u", "postgres", "--"));
		full.addAll(command);
		run(full);
	}

	private static void run(List<String> command) throws IOException, InterruptedException {
		Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
		String output = new String(process.getInputStream().readAllBytes());
		if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
			throw new IllegalStateException("Failed: " + command + "\n" + output);
		}
	}

}

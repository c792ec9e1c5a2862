package io.distlock.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

/**
 * Runs the store's statements, which block in JDBC, on threads of its own, so that the store's
 * futures never block their caller (the {@code LockStore} contract). Each call takes its own
 * connection from the {@link DataSource} and gives it back at once, in autocommit mode: never a
 * connection a caller's transaction is bound to (the raw {@code DataSource}, not Spring's
 * {@code DataSourceUtils}), so a lock row is visible to every other session the moment it is
 * written and outlives a rollback of the caller's transaction, and nothing is held between two
 * statements (it works behind pgbouncer in transaction mode).
 * <p>
 * Every call has a time bound: its query timeout, and a network timeout a second longer that
 * ends a read from a server that does not answer at all (a paused or unreachable host, where a
 * query cancel cannot get through either). A call still queued when its bound has passed is
 * failed without touching the database: the engine stopped waiting for it already.
 */
final class StatementThreads implements AutoCloseable {

	/** Added to a call's bound for the network timeout, so that the query timeout comes first. */
	private static final Duration NETWORK_GRACE = Duration.ofSeconds(1);

	/** Applies network timeouts; the PostgreSQL driver does not need an executor for it. */
	private static final Executor DIRECT = Runnable::run;

	private final DataSource dataSource;

	private final ThreadPoolExecutor threads;

	private final ThreadGroup group;

	StatementThreads(DataSource dataSource, int count, String instanceId) {
		this.dataSource = dataSource;
		this.group = new ThreadGroup("distlock-jdbc-" + instanceId);
		AtomicInteger number = new AtomicInteger();
		ThreadFactory factory = (task) -> {
			Thread thread = new Thread(this.group, task, this.group.getName() + "-" + number.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		};
		this.threads = new ThreadPoolExecutor(count, count, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
				factory);
		this.threads.allowCoreThreadTimeOut(true);
	}

	/**
	 * Return whether the thread runs this store's statements.
	 */
	boolean owns(Thread thread) {
		return thread.getThreadGroup() == this.group;
	}

	/**
	 * Run a unit of work on a connection of its own, within a bound.
	 * @param bound how long the work may take, from now
	 * @param work the statements
	 * @return the work's result, or its failure
	 */
	<T> CompletableFuture<T> call(Duration bound, Work<T> work) {
		CompletableFuture<T> result = new CompletableFuture<>();
		long deadline = System.nanoTime() + bound.toNanos();
		try {
			this.threads.execute(() -> run(deadline, bound, work, result));
		}
		catch (RejectedExecutionException ex) {
			result.completeExceptionally(new IllegalStateException("The lock store is closed", ex));
		}
		return result;
	}

	private <T> void run(long deadline, Duration bound, Work<T> work, CompletableFuture<T> result) {
		long left = deadline - System.nanoTime();
		if (left <= 0) {
			result.completeExceptionally(
					new SQLTimeoutException("Lock store call waited past its bound of " + bound.toMillis() + "ms"));
			return;
		}
		try {
			result.complete(runOnce(deadline, work));
		}
		catch (SQLException ex) {
			if (!isConnectionFailure(ex) || deadline - System.nanoTime() <= 0) {
				result.completeExceptionally(ex);
				return;
			}
			// A pooled connection that died with its server session (a restart, a terminated
			// backend): once more on another. Every statement is safe to repeat: it compares the
			// owner, and a grant repeated for its own owner is granted again.
			try {
				result.complete(runOnce(deadline, work));
			}
			catch (SQLException | RuntimeException retryFailure) {
				retryFailure.addSuppressed(ex);
				result.completeExceptionally(retryFailure);
			}
		}
		catch (RuntimeException ex) {
			result.completeExceptionally(ex);
		}
	}

	private <T> T runOnce(long deadline, Work<T> work) throws SQLException {
		try (Connection connection = this.dataSource.getConnection()) {
			if (!connection.getAutoCommit()) {
				connection.setAutoCommit(true);
			}
			long leftMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
			connection.setNetworkTimeout(DIRECT, (int) Math.min(Integer.MAX_VALUE,
					leftMillis + NETWORK_GRACE.toMillis()));
			return work.run(connection, queryTimeoutSeconds(leftMillis));
		}
	}

	/**
	 * Return whether the statement failed because its connection did: SQLSTATE class 08
	 * (connection exception) or 57P01 to 57P03 (the server shut the session down).
	 */
	private static boolean isConnectionFailure(SQLException ex) {
		String state = ex.getSQLState();
		return state != null && (state.startsWith("08") || state.startsWith("57P0"));
	}

	/**
	 * The query timeout in JDBC's whole seconds, rounded up: the network timeout ends a call that
	 * overruns a shorter bound.
	 */
	private static int queryTimeoutSeconds(long millis) {
		return (int) Math.max(1, Math.min(Integer.MAX_VALUE, (millis + 999) / 1000));
	}

	@Override
	public void close() {
		this.threads.shutdownNow();
	}

	/**
	 * Statements run on one connection.
	 *
	 * @param <T> the result
	 */
	@FunctionalInterface
	interface Work<T> {

		/**
		 * Run the statements.
		 * @param connection an autocommit connection of the call's own
		 * @param queryTimeout the query timeout of each statement, in seconds
		 * @return the result
		 * @throws SQLException if a statement fails
		 */
		T run(Connection connection, int queryTimeout) throws SQLException;

	}

}

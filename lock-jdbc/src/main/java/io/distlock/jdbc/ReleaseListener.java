package io.distlock.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.function.Consumer;

import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * The one {@code LISTEN} connection of a registry, on the release channel: a thread of its own
 * holds it and hands every announced key to the engine. When the connection breaks (the server
 * restarted, the backend was terminated) the thread reconnects after the retry interval; the
 * waiters' lease-bounded retry covers the releases announced meanwhile. Started lazily, before
 * the first wait.
 */
final class ReleaseListener implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(ReleaseListener.class);

	/** How long one wait for notifications lasts before the thread checks whether it should stop. */
	private static final int POLL_MILLIS = 500;

	private final DataSource dataSource;

	private final String channel;

	private final Duration reconnectInterval;

	private final String threadName;

	/** Guarded by this. */
	private @Nullable Thread thread;

	/** Guarded by this. */
	private @Nullable Connection connection;

	private volatile boolean closed;

	ReleaseListener(DataSource dataSource, String channel, Duration reconnectInterval, String instanceId) {
		this.dataSource = dataSource;
		this.channel = channel;
		this.reconnectInterval = reconnectInterval;
		this.threadName = "distlock-jdbc-listen-" + instanceId;
	}

	boolean owns(Thread candidate) {
		synchronized (this) {
			return candidate == this.thread;
		}
	}

	/**
	 * Listen, delivering each released key to the consumer on the listener's thread. The engine
	 * calls it on a thread of its own, since connecting may block.
	 * @return whether the channel is listened to now
	 */
	boolean start(Consumer<String> releasedKeys) {
		synchronized (this) {
			if (this.closed) {
				return false;
			}
			if (this.thread != null) {
				return true;
			}
		}
		Connection listening;
		try {
			listening = connect();
		}
		catch (SQLException | RuntimeException ex) {
			// Degraded path: waiters retry at their retry interval, and listening is tried again
			// on a later wait.
			logger.warn("Could not LISTEN on lock release channel '" + this.channel + "'; waiters poll until it"
					+ " succeeds", ex);
			return false;
		}
		synchronized (this) {
			if (this.closed) {
				closeQuietly(listening);
				return false;
			}
			this.connection = listening;
			this.thread = new Thread(() -> deliver(releasedKeys), this.threadName);
			this.thread.setDaemon(true);
			this.thread.start();
			return true;
		}
	}

	private void deliver(Consumer<String> releasedKeys) {
		while (!this.closed) {
			Connection current;
			synchronized (this) {
				current = this.connection;
			}
			try {
				if (current == null) {
					current = reconnect();
					if (current == null) {
						continue;
					}
				}
				PGNotification[] notifications = current.unwrap(PGConnection.class).getNotifications(POLL_MILLIS);
				if (notifications != null) {
					for (PGNotification notification : notifications) {
						releasedKeys.accept(notification.getParameter());
					}
				}
			}
			catch (SQLException | RuntimeException ex) {
				if (this.closed) {
					return;
				}
				// Degraded path: the waiters' retry covers what is announced until we listen again.
				logger.warn("Lost the LISTEN connection of lock release channel '" + this.channel
						+ "'; reconnecting in " + this.reconnectInterval.toMillis() + "ms", ex);
				drop(current);
			}
		}
	}

	private Connection reconnect() {
		try {
			Thread.sleep(this.reconnectInterval.toMillis());
			Connection fresh = connect();
			synchronized (this) {
				if (this.closed) {
					closeQuietly(fresh);
					return null;
				}
				this.connection = fresh;
			}
			return fresh;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			this.closed = true;
			return null;
		}
		catch (SQLException | RuntimeException ex) {
			logger.debug("Could not LISTEN again on lock release channel '" + this.channel + "'", ex);
			return null;
		}
	}

	private Connection connect() throws SQLException {
		Connection fresh = this.dataSource.getConnection();
		try {
			fresh.setAutoCommit(true);
			fresh.unwrap(PGConnection.class);
			try (Statement statement = fresh.createStatement()) {
				statement.setQueryTimeout((int) Math.max(1, this.reconnectInterval.toSeconds()));
				statement.execute("LISTEN \"" + this.channel + "\"");
			}
			return fresh;
		}
		catch (SQLException | RuntimeException ex) {
			closeQuietly(fresh);
			throw ex;
		}
	}

	private void drop(Connection broken) {
		synchronized (this) {
			if (this.connection == broken) {
				this.connection = null;
			}
		}
		if (broken != null) {
			closeQuietly(broken);
		}
	}

	@Override
	public void close() {
		Connection current;
		Thread running;
		synchronized (this) {
			this.closed = true;
			current = this.connection;
			this.connection = null;
			running = this.thread;
		}
		if (running != null) {
			running.interrupt();
		}
		if (current != null) {
			unlisten(current);
			closeQuietly(current);
		}
	}

	/**
	 * Stop listening before a pooled connection goes back to its pool, where its next user would
	 * otherwise collect this channel's notifications.
	 */
	private void unlisten(Connection connection) {
		try (Statement statement = connection.createStatement()) {
			statement.setQueryTimeout(1);
			statement.execute("UNLISTEN \"" + this.channel + "\"");
		}
		catch (SQLException ex) {
			// The connection is closed right after: a broken one is evicted by its pool.
			logger.debug("Could not UNLISTEN lock release channel '" + this.channel + "'", ex);
		}
	}

	private static void closeQuietly(Connection connection) {
		try {
			connection.close();
		}
		catch (SQLException ex) {
			// A connection given up on: its server session ends with it or already has.
			logger.debug("Could not close the LISTEN connection", ex);
		}
	}

}

package io.distlock.jdbc;

import java.nio.charset.StandardCharsets;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import io.distlock.core.LockKeyException;
import io.distlock.store.LocalHandoffStore;
import io.distlock.store.LockMode;

/**
 * A {@link io.distlock.store.LockStore} on a PostgreSQL lease table ({@link LockTableStatements}):
 * every operation is one statement on a connection of its own, in autocommit mode, run on the
 * store's statement threads ({@link StatementThreads}); a release that someone waits for sends a
 * {@code NOTIFY} in the same statement, which {@link ReleaseListener} hears. Exclusive locks
 * only: fair and read/write locks are refused (the registry says so at startup).
 */
final class PostgresLockStore implements LocalHandoffStore {

	/** The longest key the table takes: a B-tree entry must fit in a third of a page. */
	static final int MAX_KEY_BYTES = 2048;

	/** The bound of a release, a checkpoint, a held check and a ping: the engine's own. */
	private static final Duration SHORT_BOUND = Duration.ofSeconds(1);

	/** What an acquisition may take beyond the caller's wait time: the engine's slack. */
	private static final Duration ATTEMPT_SLACK = Duration.ofMillis(250);

	private final LockTableStatements statements;

	private final StatementThreads threads;

	private final ReleaseListener listener;

	private final Duration statementTimeout;

	PostgresLockStore(LockTableStatements statements, StatementThreads threads, ReleaseListener listener,
			Duration statementTimeout) {
		this.statements = statements;
		this.threads = threads;
		this.listener = listener;
		this.statementTimeout = statementTimeout;
	}

	@Override
	public boolean isIoThread(Thread thread) {
		return this.threads.owns(thread) || this.listener.owns(thread);
	}

	@Override
	public void checkKey(String key) {
		if (key.indexOf('\0') >= 0) {
			throw new LockKeyException("Lock key '" + key.replace('\0', '?') + "' contains a NUL character,"
					+ " which PostgreSQL text cannot hold");
		}
		int bytes = key.getBytes(StandardCharsets.UTF_8).length;
		if (bytes > MAX_KEY_BYTES) {
			throw new LockKeyException("Lock key of " + bytes + " UTF-8 bytes is longer than the " + MAX_KEY_BYTES
					+ " bytes the lock table's primary key takes");
		}
	}

	@Override
	public CompletableFuture<Acquisition> tryAcquire(LockMode mode, String key, String owner, Duration leaseTime,
			Duration waitTime) {
		if (mode != LockMode.EXCLUSIVE) {
			return CompletableFuture.failedFuture(new UnsupportedOperationException(
					"PostgresLockRegistry grants exclusive locks only, not " + mode + " locks"));
		}
		long waitMillis = Math.max(0, waitTime.toMillis());
		return call(bounded(waitTime.plus(ATTEMPT_SLACK)), (connection, timeout) -> {
			try (PreparedStatement statement = prepare(connection, this.statements.acquire(), timeout)) {
				statement.setString(1, key);
				statement.setString(2, owner);
				statement.setLong(3, leaseTime.toMillis());
				statement.setLong(4, waitMillis);
				statement.setLong(5, waitMillis);
				statement.setString(6, key);
				try (ResultSet rows = statement.executeQuery()) {
					rows.next();
					long token = rows.getLong(1);
					if (!rows.wasNull()) {
						return Acquisition.granted(token);
					}
					long ttl = rows.getLong(2);
					return Acquisition.taken(rows.wasNull() ? -1 : Math.max(0, ttl));
				}
			}
		});
	}

	@Override
	public CompletableFuture<Boolean> release(LockMode mode, String key, String owner) {
		return releaseExclusive(key, owner, 0).thenApply((released) -> released != Release.NOT_HELD);
	}

	@Override
	public CompletableFuture<Release> releaseExclusive(String key, String owner, long lastToken) {
		return call(SHORT_BOUND, (connection, timeout) -> {
			Release release;
			try (PreparedStatement statement = prepare(connection, this.statements.release(), timeout)) {
				statement.setLong(1, lastToken);
				statement.setString(2, key);
				statement.setString(3, owner);
				try (ResultSet rows = statement.executeQuery()) {
					release = !rows.next() ? Release.NOT_HELD
							: rows.getBoolean(1) ? Release.RELEASED_AWAITED : Release.RELEASED;
				}
			}
			if (release == Release.NOT_HELD) {
				raiseToken(connection, timeout, key, lastToken);
			}
			return release;
		});
	}

	@Override
	public CompletableFuture<Checkpoint> keepUnlessAwaited(String key, String owner, long lastToken,
			Duration leaseTime) {
		return call(SHORT_BOUND, (connection, timeout) -> {
			try (PreparedStatement statement = prepare(connection, this.statements.keepUnlessAwaited(), timeout)) {
				statement.setLong(1, leaseTime.toMillis());
				statement.setLong(2, lastToken);
				statement.setLong(3, lastToken);
				statement.setString(4, key);
				statement.setString(5, owner);
				try (ResultSet rows = statement.executeQuery()) {
					if (rows.next()) {
						return rows.getBoolean(1) ? new Checkpoint(Release.RELEASED_AWAITED, 0)
								: new Checkpoint(Release.KEPT, rows.getLong(2));
					}
				}
			}
			raiseToken(connection, timeout, key, lastToken);
			return new Checkpoint(Release.NOT_HELD, 0);
		});
	}

	@Override
	public CompletableFuture<Boolean> keepExclusive(String key, String owner, long lastToken, Duration keepTime) {
		return call(SHORT_BOUND, (connection, timeout) -> {
			int kept;
			try (PreparedStatement statement = prepare(connection, this.statements.keepExclusive(), timeout)) {
				statement.setLong(1, keepTime.toMillis());
				statement.setLong(2, lastToken);
				statement.setString(3, key);
				statement.setString(4, owner);
				kept = statement.executeUpdate();
			}
			if (kept == 0) {
				raiseToken(connection, timeout, key, lastToken);
			}
			return kept > 0;
		});
	}

	@Override
	public CompletableFuture<Boolean> isHeld(HeldKey grant) {
		return call(SHORT_BOUND, (connection, timeout) -> {
			try (PreparedStatement statement = prepare(connection, this.statements.isHeld(), timeout)) {
				statement.setString(1, grant.key());
				statement.setString(2, grant.owner());
				try (ResultSet rows = statement.executeQuery()) {
					return rows.next();
				}
			}
		});
	}

	@Override
	public CompletableFuture<boolean[]> renew(List<HeldKey> grants, Duration leaseTime) {
		String[] keys = new String[grants.size()];
		String[] owners = new String[grants.size()];
		for (int i = 0; i < keys.length; i++) {
			keys[i] = grants.get(i).key();
			owners[i] = grants.get(i).owner();
		}
		return call(bounded(leaseTime), (connection, timeout) -> {
			Set<String> renewed = new HashSet<>();
			try (PreparedStatement statement = prepare(connection, this.statements.renew(), timeout)) {
				Array keyArray = connection.createArrayOf("text", keys);
				Array ownerArray = connection.createArrayOf("text", owners);
				statement.setLong(1, leaseTime.toMillis());
				statement.setArray(2, keyArray);
				statement.setArray(3, ownerArray);
				try (ResultSet rows = statement.executeQuery()) {
					while (rows.next()) {
						renewed.add(rows.getString(2));
					}
				}
			}
			boolean[] answer = new boolean[keys.length];
			for (int i = 0; i < keys.length; i++) {
				// Owners are unique per grant: the owner alone names the renewed grant.
				answer[i] = renewed.contains(owners[i]);
			}
			return answer;
		});
	}

	@Override
	public boolean listen(Consumer<String> releasedKeys) {
		return this.listener.start(releasedKeys);
	}

	@Override
	public CompletableFuture<Void> ping() {
		return call(SHORT_BOUND, (connection, timeout) -> {
			try (PreparedStatement statement = prepare(connection, "SELECT 1", timeout)) {
				statement.executeQuery().close();
			}
			return null;
		});
	}

	@Override
	public void close() {
		this.listener.close();
		this.threads.close();
	}

	/**
	 * Raise the key's token record to the last token handed out locally, whoever holds the key
	 * now: the grant was no longer the owner's, so the statement that would have raised it did
	 * not match.
	 */
	private void raiseToken(Connection connection, int timeout, String key, long lastToken) throws SQLException {
		if (lastToken <= 0) {
			return;
		}
		try (PreparedStatement statement = prepare(connection, this.statements.raiseToken(), timeout)) {
			statement.setLong(1, lastToken);
			statement.setString(2, key);
			statement.setLong(3, lastToken);
			statement.executeUpdate();
		}
	}

	private Duration bounded(Duration bound) {
		return (bound.compareTo(this.statementTimeout) < 0) ? bound : this.statementTimeout;
	}

	private <T> CompletableFuture<T> call(Duration bound, StatementThreads.Work<T> work) {
		return this.threads.call(bound, work);
	}

	private static PreparedStatement prepare(Connection connection, String sql, int timeout) throws SQLException {
		PreparedStatement statement = connection.prepareStatement(sql);
		statement.setQueryTimeout(timeout);
		return statement;
	}

}

package io.distlock.fencing;

import java.sql.DatabaseMetaData;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.EmptyResultDataAccessException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.JdbcUtils;
import org.springframework.jdbc.support.MetaDataAccessException;

import io.distlock.core.LockContext;
import io.distlock.core.LockLease;
import io.distlock.core.LockListener;
import io.distlock.core.StaleFencingTokenException;

/**
 * Fenced writes on a relational database, in the caller's transaction: a write carries the
 * holder's fencing token and is refused with {@link StaleFencingTokenException} once a newer
 * holder of the same lock has written. The exception rolls the transaction back, so nothing the
 * stale holder wrote in it lands. This is the defence that does not rely on timing: a holder
 * paused past its lease (a GC pause, a stalled VM, a lost key after a failover) is stopped at
 * the write.
 * <p>
 * Two forms, each one statement on the transaction's connection (Spring's
 * {@code DataSourceUtils}, as {@code JdbcTemplate}):
 * <ul>
 * <li>{@link #advance(String)}: a fence row per resource in the fence table
 * ({@value #DEFAULT_TABLE}: {@code resource}, {@code token}; PostgreSQL, MySQL, MariaDB and H2,
 * whose DDL is {@code io/distlock/fencing/schema-<database>.sql} in this jar), raised
 * in the transaction that writes the data; for data of any shape, and the only change to the
 * schema is the fence table. The row stays locked until the transaction ends, so writers of one resource commit
 * one after the other in token order.</li>
 * <li>{@link #updateRow}: an {@code UPDATE} of the caller's own row through a token column that
 * it sets and compares in the same statement.</li>
 * </ul>
 * Fence first, before reading what you will write: the fence row stays locked until the
 * transaction ends, so a newer holder's fence, and the read after it, waits for an older holder
 * that fenced first, and an older holder that comes after a newer one is refused. Fenced after
 * the read, a stale holder could write between a newer holder's read and its write.
 * <p>
 * The token is the one of the innermost lock the calling thread holds
 * ({@link LockContext#current()}, which {@code @DistributedLock} fills), or a lease passed
 * explicitly. Tokens grow per lock key: fence a resource with the tokens of one lock key only.
 * Several writes of one hold all pass; a write of an older hold after a newer one fails.
 */
public final class JdbcFencing {

	/** The fence table's default name. */
	public static final String DEFAULT_TABLE = "distlock_fence";

	/** The default name of the token column of a fenced row. */
	public static final String DEFAULT_TOKEN_COLUMN = "fence_token";

	private final JdbcClient jdbc;

	private final DataSource dataSource;

	private final String table;

	private final LockListener listener;

	private volatile @Nullable FenceDialect dialect;

	/**
	 * Create fenced writes on the data source, with the fence table {@value #DEFAULT_TABLE}.
	 * @param dataSource the application's data source, the one its transactions use
	 */
	public JdbcFencing(DataSource dataSource) {
		this(dataSource, DEFAULT_TABLE, LockListener.NONE);
	}

	private JdbcFencing(DataSource dataSource, String table, LockListener listener) {
		this.dataSource = Objects.requireNonNull(dataSource, "dataSource must not be null");
		this.jdbc = JdbcClient.create(dataSource);
		this.table = FenceDialect.identifier(table, "table");
		this.listener = Objects.requireNonNull(listener, "listener must not be null");
	}

	/**
	 * Return a copy that keeps its fences in another table, with the columns {@code resource}
	 * ({@code VARCHAR(255)}, primary key) and {@code token} ({@code BIGINT}).
	 * @param table the table name, optionally with its schema ({@code locks.fence})
	 * @return the copy
	 */
	public JdbcFencing withTable(String table) {
		return new JdbcFencing(this.dataSource, table, this.listener);
	}

	/**
	 * Return a copy that tells the listener of every refused write
	 * ({@link LockListener#onFencingRejected}): the {@code distlock.fencing.rejected} meter.
	 * @param listener the listener
	 * @return the copy
	 */
	public JdbcFencing withListener(LockListener listener) {
		return new JdbcFencing(this.dataSource, this.table, listener);
	}

	/**
	 * Raise the resource's fence to the fencing token of the innermost lock the calling thread
	 * holds, in the current transaction.
	 * @param resource what the writes of this transaction change, such as {@code stock:42}
	 * @throws StaleFencingTokenException if a newer holder of the lock has raised it already
	 * @throws IllegalStateException if the calling thread holds no lock
	 */
	public void advance(String resource) {
		advance(resource, LockContext.current());
	}

	/**
	 * Raise the resource's fence to the lease's fencing token, in the current transaction.
	 * @param resource what the writes of this transaction change, such as {@code stock:42}
	 * @param lease the lease the writes are made under
	 * @throws StaleFencingTokenException if a newer holder of the lock has raised it already
	 */
	public void advance(String resource, LockLease lease) {
		Objects.requireNonNull(resource, "resource must not be null");
		long token = lease.fencingToken();
		FenceDialect dialect = dialect();
		int rows = this.jdbc.sql(dialect.advance(this.table)).params(resource, token).update();
		if (rows > 0 && dialect.rowCountTellsAcceptance()) {
			return;
		}
		// The stored token decides: ours (MySQL's upsert keeps the greater one), or a newer one.
		long current = this.jdbc.sql("SELECT token FROM " + this.table + " WHERE resource = ?")
			.param(resource)
			.query(Long.class)
			.optional()
			.orElse(-1L);
		if (current == token) {
			return;
		}
		throw rejected(lease, resource, token, current);
	}

	/**
	 * Update one row of the caller's table if the row's token column is not newer than the
	 * fencing token of the innermost lock the calling thread holds, and record that token in it:
	 * {@code UPDATE table SET column = ?, ..., fence_token = :token WHERE idColumn = :id AND
	 * (fence_token IS NULL OR fence_token <= :token)}. Names are checked to be plain SQL
	 * identifiers; values are bound. For a write that does not depend on an earlier read: the
	 * row's token is raised only by the write, so a value computed from a read needs
	 * {@link #advance(String)} before that read.
	 * @param table the table
	 * @param idColumn the column that identifies the row
	 * @param id the row's id
	 * @param values the columns to set and their values
	 * @throws StaleFencingTokenException if a newer holder of the lock has updated the row
	 * @throws EmptyResultDataAccessException if there is no such row
	 */
	public void updateRow(String table, String idColumn, Object id, Map<String, ?> values) {
		updateRow(table, idColumn, id, values, DEFAULT_TOKEN_COLUMN, LockContext.current());
	}

	/**
	 * Update one row of the caller's table under the given lease, through the given token column
	 * (see {@link #updateRow(String, String, Object, Map)}).
	 * @param table the table
	 * @param idColumn the column that identifies the row
	 * @param id the row's id
	 * @param values the columns to set and their values
	 * @param tokenColumn the row's {@code BIGINT} token column
	 * @param lease the lease the write is made under
	 * @throws StaleFencingTokenException if a newer holder of the lock has updated the row
	 * @throws EmptyResultDataAccessException if there is no such row
	 */
	public void updateRow(String table, String idColumn, Object id, Map<String, ?> values, String tokenColumn,
			LockLease lease) {
		String target = FenceDialect.identifier(table, "table");
		String idName = FenceDialect.identifier(idColumn, "idColumn");
		String tokenName = FenceDialect.identifier(tokenColumn, "tokenColumn");
		if (values.isEmpty()) {
			throw new IllegalArgumentException("values must name at least one column to set");
		}
		long token = lease.fencingToken();
		StringBuilder sql = new StringBuilder("UPDATE ").append(target).append(" SET ");
		List<Object> params = new ArrayList<>();
		values.forEach((column, value) -> {
			sql.append(FenceDialect.identifier(column, "column")).append(" = ?, ");
			params.add(value);
		});
		sql.append(tokenName).append(" = ? WHERE ").append(idName).append(" = ? AND (").append(tokenName)
			.append(" IS NULL OR ").append(tokenName).append(" <= ?)");
		params.add(token);
		params.add(id);
		params.add(token);
		if (this.jdbc.sql(sql.toString()).params(params).update() > 0) {
			return;
		}
		String resource = target + " " + idName + " = " + id;
		List<Long> current = this.jdbc.sql("SELECT " + tokenName + " FROM " + target + " WHERE " + idName + " = ?")
			.param(id)
			.query((row, index) -> row.getLong(1))
			.list();
		if (current.isEmpty()) {
			throw new EmptyResultDataAccessException("No row in '" + target + "' with " + idName + " = " + id, 1);
		}
		throw rejected(lease, resource, token, current.get(0));
	}

	private StaleFencingTokenException rejected(LockLease lease, String resource, long token, long current) {
		StaleFencingTokenException stale = new StaleFencingTokenException(resource, token, current);
		FencingRejections.tell(this.listener, lease, stale);
		return stale;
	}

	private FenceDialect dialect() {
		FenceDialect known = this.dialect;
		if (known == null) {
			try {
				known = FenceDialect
					.of(JdbcUtils.extractDatabaseMetaData(this.dataSource, DatabaseMetaData::getDatabaseProductName));
			}
			catch (MetaDataAccessException ex) {
				throw new IllegalStateException("Could not tell which database the fence table is in", ex);
			}
			this.dialect = known;
		}
		return known;
	}

}

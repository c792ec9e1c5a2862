package io.distlock.fencing;

import java.util.Map;
import java.util.Objects;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.dao.EmptyResultDataAccessException;
import org.springframework.r2dbc.core.DatabaseClient;

import io.distlock.core.LockLease;
import io.distlock.core.LockListener;
import io.distlock.core.StaleFencingTokenException;
import io.distlock.reactive.ReactiveLockContext;

/**
 * {@link JdbcFencing} for reactive holds: the same fence table and the same fenced row update,
 * through Spring R2DBC's {@link DatabaseClient}, in the subscribing chain's reactive transaction
 * ({@code @Transactional} on a {@code Mono} method, or a {@code TransactionalOperator}). A refused
 * write fails with {@link StaleFencingTokenException}, which rolls the transaction back; nothing
 * of it is written.
 * <p>
 * The token is the one of the innermost lock the subscribing chain holds
 * ({@link ReactiveLockContext#current()}, which {@code ReactiveLocks} and {@code @DistributedLock}
 * on a {@code Mono} or {@code Flux} fill, and a Kotlin coroutine's {@code withLock} passes on when
 * the {@code Mono} is awaited), or a lease passed explicitly. Fence first in the transaction,
 * before reading what you will write, as with {@link JdbcFencing#advance(String)}: the fence row
 * stays locked until the transaction ends.
 */
public final class R2dbcFencing {

	private final DatabaseClient database;

	private final String table;

	private final LockListener listener;

	private volatile @Nullable FenceDialect dialect;

	/**
	 * Create fenced writes through the client, with the fence table
	 * {@value JdbcFencing#DEFAULT_TABLE}.
	 * @param database the application's client, on the connection factory its transactions use
	 */
	public R2dbcFencing(DatabaseClient database) {
		this(database, JdbcFencing.DEFAULT_TABLE, LockListener.NONE);
	}

	private R2dbcFencing(DatabaseClient database, String table, LockListener listener) {
		this.database = Objects.requireNonNull(database, "database must not be null");
		this.table = FenceDialect.identifier(table, "table");
		this.listener = Objects.requireNonNull(listener, "listener must not be null");
	}

	/**
	 * Return a copy that keeps its fences in another table, with the columns {@code resource}
	 * ({@code VARCHAR(255)}, primary key) and {@code token} ({@code BIGINT}).
	 * @param table the table name, optionally with its schema ({@code locks.fence})
	 * @return the copy
	 */
	public R2dbcFencing withTable(String table) {
		return new R2dbcFencing(this.database, table, this.listener);
	}

	/**
	 * Return a copy that tells the listener of every refused write
	 * ({@link LockListener#onFencingRejected}): the {@code distlock.fencing.rejected} meter.
	 * @param listener the listener
	 * @return the copy
	 */
	public R2dbcFencing withListener(LockListener listener) {
		return new R2dbcFencing(this.database, this.table, listener);
	}

	/**
	 * Raise the resource's fence to the fencing token of the innermost lock the chain holds, in
	 * the chain's transaction.
	 * @param resource what the writes of this transaction change, such as {@code stock:42}
	 * @return completes once raised; failing with {@link StaleFencingTokenException} if a newer
	 * holder of the lock has raised it already, or with {@link IllegalStateException} if the
	 * chain holds no lock
	 */
	public Mono<Void> advance(String resource) {
		return ReactiveLockContext.current().flatMap((lease) -> advance(resource, lease));
	}

	/**
	 * Raise the resource's fence to the lease's fencing token, in the chain's transaction.
	 * @param resource what the writes of this transaction change, such as {@code stock:42}
	 * @param lease the lease the writes are made under
	 * @return completes once raised; failing with {@link StaleFencingTokenException} if a newer
	 * holder of the lock has raised it already
	 */
	public Mono<Void> advance(String resource, LockLease lease) {
		Objects.requireNonNull(resource, "resource must not be null");
		long token = lease.fencingToken();
		return Mono.defer(() -> this.database.sql(dialect().advanceNamed(this.table))
			.bind("resource", resource)
			.bind("token", token)
			.fetch()
			.rowsUpdated()
			.flatMap((rows) -> {
				if (rows > 0 && dialect().rowCountTellsAcceptance()) {
					return Mono.<Void>empty();
				}
				// The stored token decides: ours (MySQL's upsert keeps the greater one), or a newer one.
				return this.database.sql("SELECT token FROM " + this.table + " WHERE resource = :resource")
					.bind("resource", resource)
					.map((row, metadata) -> row.get(0, Long.class))
					.one()
					.defaultIfEmpty(-1L)
					.flatMap((current) -> (current == token) ? Mono.<Void>empty()
							: Mono.<Void>error(rejected(lease, resource, token, current)));
			}));
	}

	/**
	 * Update one row of the caller's table if the row's token column ({@value JdbcFencing#DEFAULT_TOKEN_COLUMN})
	 * is not newer than the fencing token of the innermost lock the chain holds, and record that
	 * token in it, as {@link JdbcFencing#updateRow(String, String, Object, Map)} does. Names are
	 * checked to be plain SQL identifiers; values are bound and must not be {@code null}.
	 * @param table the table
	 * @param idColumn the column that identifies the row
	 * @param id the row's id
	 * @param values the columns to set and their values
	 * @return completes once updated; failing with {@link StaleFencingTokenException} if a newer
	 * holder of the lock has updated the row, with {@link EmptyResultDataAccessException} if there
	 * is no such row, or with {@link IllegalStateException} if the chain holds no lock
	 */
	public Mono<Void> updateRow(String table, String idColumn, Object id, Map<String, ?> values) {
		return ReactiveLockContext.current()
			.flatMap((lease) -> updateRow(table, idColumn, id, values, JdbcFencing.DEFAULT_TOKEN_COLUMN, lease));
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
	 * @return completes once updated; failing with {@link StaleFencingTokenException} if a newer
	 * holder of the lock has updated the row, or with {@link EmptyResultDataAccessException} if
	 * there is no such row
	 */
	public Mono<Void> updateRow(String table, String idColumn, Object id, Map<String, ?> values, String tokenColumn,
			LockLease lease) {
		String target = FenceDialect.identifier(table, "table");
		String idName = FenceDialect.identifier(idColumn, "idColumn");
		String tokenName = FenceDialect.identifier(tokenColumn, "tokenColumn");
		Objects.requireNonNull(id, "id must not be null");
		if (values.isEmpty()) {
			throw new IllegalArgumentException("values must name at least one column to set");
		}
		long token = lease.fencingToken();
		StringBuilder sql = new StringBuilder("UPDATE ").append(target).append(" SET ");
		int index = 0;
		for (String column : values.keySet()) {
			sql.append(FenceDialect.identifier(column, "column")).append(" = :v").append(index++).append(", ");
		}
		sql.append(tokenName).append(" = :token WHERE ").append(idName).append(" = :id AND (").append(tokenName)
			.append(" IS NULL OR ").append(tokenName).append(" <= :limit)");
		return Mono.defer(() -> {
			DatabaseClient.GenericExecuteSpec update = this.database.sql(sql.toString());
			int bound = 0;
			for (Map.Entry<String, ?> value : values.entrySet()) {
				if (value.getValue() == null) {
					return Mono.error(new IllegalArgumentException("Column '" + value.getKey()
							+ "' of the fenced update of '" + target + "' has no value; R2DBC binds no untyped null"));
				}
				update = update.bind("v" + bound++, value.getValue());
			}
			return update.bind("token", token)
				.bind("id", id)
				.bind("limit", token)
				.fetch()
				.rowsUpdated()
				.flatMap((rows) -> (rows > 0) ? Mono.<Void>empty() : refusedRow(target, idName, id, tokenName, token, lease));
		});
	}

	private Mono<Void> refusedRow(String target, String idName, Object id, String tokenName, long token,
			LockLease lease) {
		return this.database.sql("SELECT " + tokenName + " FROM " + target + " WHERE " + idName + " = :id")
			.bind("id", id)
			.map((row, metadata) -> {
				Long current = row.get(0, Long.class);
				return (current != null) ? current : -1L;
			})
			.first()
			.switchIfEmpty(Mono.error(() -> new EmptyResultDataAccessException(
					"No row in '" + target + "' with " + idName + " = " + id, 1)))
			.flatMap((current) -> Mono.<Void>error(rejected(lease, target + " " + idName + " = " + id, token, current)));
	}

	private StaleFencingTokenException rejected(LockLease lease, String resource, long token, long current) {
		StaleFencingTokenException stale = new StaleFencingTokenException(resource, token, current);
		FencingRejections.tell(this.listener, lease, stale);
		return stale;
	}

	private FenceDialect dialect() {
		FenceDialect known = this.dialect;
		if (known == null) {
			known = FenceDialect.of(this.database.getConnectionFactory().getMetadata().getName());
			this.dialect = known;
		}
		return known;
	}

}

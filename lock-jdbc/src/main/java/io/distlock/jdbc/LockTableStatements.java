package io.distlock.jdbc;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The SQL of the lease table, for one table name. Every statement reads the database's clock
 * ({@code clock_timestamp()}, the time the statement runs, never {@code now()}, which is the
 * start of a transaction) and nothing of the JVM's: a lease's expiry is computed in SQL from a
 * duration in milliseconds. Each statement is one autocommit round trip that compares the owner
 * in its {@code WHERE}, so that no holder ever releases or extends a grant that is not its own.
 * <p>
 * A grant's fencing token is {@code greatest(last token + 1, database clock in microseconds)},
 * as on Redis: the row keeps the last token after a release, so tokens grow across releases,
 * expiry and restarts of the application even if the database clock steps back; the clock part
 * makes a grant minted after an expiry larger than every token the expired holder's process
 * handed out locally (at most {@code RegistrySettings.MAX_LOCAL_HANDOFFS} past its own, fewer
 * than the microseconds of the shortest lease), even when that holder never recorded them.
 */
final class LockTableStatements {

	private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)?");

	/** The database clock in microseconds since the epoch, the floor of every new token. */
	private static final String CLOCK_MICROS = "(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000)::bigint";

	private final String table;

	private final String channel;

	private final String acquire;

	private final String release;

	private final String keepUnlessAwaited;

	private final String keepExclusive;

	private final String raiseToken;

	private final String isHeld;

	private final String renew;

	private final String probe;

	LockTableStatements(String table) {
		this.table = identifier(table);
		// A channel is an identifier: the table name without its schema's dot.
		this.channel = this.table.replace('.', '_').toLowerCase(Locale.ROOT) + "_released";
		// Free, released, expired, or already the caller's (an attempt repeated after its answer
		// was lost): take it. Otherwise (no row from 'granted') mark that the
		// caller waits, for its wait time, and answer how long the holder's lease still runs.
		this.acquire = """
				WITH granted AS (
				  INSERT INTO %1$s AS l (lock_key, owner, token, expires_at)
				  VALUES (?, ?, %2$s, clock_timestamp() + ?::float8 * INTERVAL '1 millisecond')
				  ON CONFLICT (lock_key) DO UPDATE
				    SET owner = EXCLUDED.owner, token = GREATEST(l.token + 1, EXCLUDED.token),
				      expires_at = EXCLUDED.expires_at
				    WHERE l.expires_at IS NULL OR l.expires_at <= clock_timestamp() OR l.owner = EXCLUDED.owner
				  RETURNING token),
				taken AS (
				  UPDATE %1$s SET awaited_until = CASE WHEN ?::bigint > 0
				      THEN GREATEST(awaited_until, clock_timestamp() + ?::float8 * INTERVAL '1 millisecond')
				      ELSE awaited_until END
				  WHERE lock_key = ? AND NOT EXISTS (SELECT 1 FROM granted)
				  RETURNING expires_at)
				SELECT (SELECT token FROM granted),
				  (SELECT CEIL(EXTRACT(EPOCH FROM (expires_at - clock_timestamp())) * 1000)::bigint FROM taken)
				""".formatted(this.table, CLOCK_MICROS);
		// NOTIFY only when someone waits: every NOTIFY takes a cluster-wide lock at commit.
		this.release = """
				WITH released AS (
				  UPDATE %1$s SET owner = NULL, expires_at = NULL, token = GREATEST(token, ?)
				  WHERE lock_key = ? AND owner = ? AND expires_at > clock_timestamp()
				  RETURNING lock_key, COALESCE(awaited_until > clock_timestamp(), false) AS awaited)
				SELECT r.awaited, CASE WHEN r.awaited THEN pg_notify('%2$s', r.lock_key)::text END
				FROM released r
				""".formatted(this.table, this.channel);
		// One clock reading decides every column: kept (new lease, new token) or released.
		this.keepUnlessAwaited = """
				WITH c AS (SELECT clock_timestamp() AS now),
				kept AS (
				  UPDATE %1$s t SET
				    owner = CASE WHEN t.awaited_until > c.now THEN NULL ELSE t.owner END,
				    expires_at = CASE WHEN t.awaited_until > c.now THEN NULL
				      ELSE c.now + ?::float8 * INTERVAL '1 millisecond' END,
				    token = CASE WHEN t.awaited_until > c.now THEN GREATEST(t.token, ?)
				      ELSE GREATEST(t.token + 1, ?::bigint + 1, (EXTRACT(EPOCH FROM c.now) * 1000000)::bigint) END
				  FROM c
				  WHERE t.lock_key = ? AND t.owner = ? AND t.expires_at > c.now
				  RETURNING t.lock_key, t.owner IS NULL AS released, t.token)
				SELECT k.released, k.token, CASE WHEN k.released THEN pg_notify('%2$s', k.lock_key)::text END
				FROM kept k
				""".formatted(this.table, this.channel);
		this.keepExclusive = ("UPDATE %1$s SET expires_at = clock_timestamp() + ?::float8 * INTERVAL '1 millisecond',"
				+ " token = GREATEST(token, ?) WHERE lock_key = ? AND owner = ? AND expires_at > clock_timestamp()")
			.formatted(this.table);
		this.raiseToken = "UPDATE %1$s SET token = ? WHERE lock_key = ? AND token < ?".formatted(this.table);
		this.isHeld = "SELECT 1 FROM %1$s WHERE lock_key = ? AND owner = ? AND expires_at > clock_timestamp()"
			.formatted(this.table);
		// Never re-creates a row: a grant whose lease ran out is not renewed.
		this.renew = """
				UPDATE %1$s t SET expires_at = clock_timestamp() + ?::float8 * INTERVAL '1 millisecond'
				FROM unnest(?::text[], ?::text[]) AS g(lock_key, owner)
				WHERE t.lock_key = g.lock_key AND t.owner = g.owner AND t.expires_at > clock_timestamp()
				RETURNING t.lock_key, t.owner
				""".formatted(this.table);
		this.probe = "SELECT lock_key, owner, token, expires_at, awaited_until FROM %1$s WHERE false"
			.formatted(this.table);
	}

	/**
	 * Refuse a table name that is not a plain SQL identifier: it goes into the statements as text.
	 */
	static String identifier(String table) {
		if (table == null || !IDENTIFIER.matcher(table).matches()) {
			throw new IllegalArgumentException("tableName must be a plain SQL identifier (letters, digits and '_',"
					+ " optionally after a schema and a dot) but was '" + table + "'");
		}
		return table;
	}

	String table() {
		return this.table;
	}

	/** The channel a release that someone waits for is announced on, with the key as payload. */
	String channel() {
		return this.channel;
	}

	/** key, owner, lease ms, wait ms, wait ms, key: the token, or null and the holder's ms left. */
	String acquire() {
		return this.acquire;
	}

	/** last token, key, owner: one row (awaited) if released, none if it was not the owner's. */
	String release() {
		return this.release;
	}

	/** lease ms, last token, last token, key, owner: one row (released, token), none if not held. */
	String keepUnlessAwaited() {
		return this.keepUnlessAwaited;
	}

	/** keep ms, last token, key, owner: one row updated if still the owner's. */
	String keepExclusive() {
		return this.keepExclusive;
	}

	/** token, key, token: raises the key's token record, whoever holds it. */
	String raiseToken() {
		return this.raiseToken;
	}

	/** key, owner: one row if held. */
	String isHeld() {
		return this.isHeld;
	}

	/** lease ms, keys, owners: the renewed (key, owner) pairs. */
	String renew() {
		return this.renew;
	}

	/** Reads every column the store needs, and no row. */
	String probe() {
		return this.probe;
	}

}

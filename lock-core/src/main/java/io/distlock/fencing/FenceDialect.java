package io.distlock.fencing;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The statement that moves a fence forward in one database's SQL: it inserts the resource's
 * row, or raises its token, only if the new token is not older than the stored one.
 */
enum FenceDialect {

	/** PostgreSQL: an upsert whose update is conditional. */
	POSTGRESQL("INSERT INTO %1$s AS f (resource, token) VALUES (?, ?) ON CONFLICT (resource) DO UPDATE"
			+ " SET token = EXCLUDED.token WHERE f.token <= EXCLUDED.token", true),

	/** H2: a merge with a conditional update. */
	H2("MERGE INTO %1$s f USING (VALUES (CAST(? AS VARCHAR(255)), CAST(? AS BIGINT))) n(resource, token)"
			+ " ON f.resource = n.resource WHEN MATCHED AND f.token <= n.token THEN UPDATE SET token = n.token"
			+ " WHEN NOT MATCHED THEN INSERT (resource, token) VALUES (n.resource, n.token)", true),

	/**
	 * MySQL and MariaDB: an upsert that keeps the greater token. Its row count cannot tell a
	 * refusal: with the drivers' default (found rows, not changed rows) a row left as it was
	 * counts 1 too. The caller reads the stored token back instead (the upsert holds the row's
	 * lock, so the read sees what this transaction left).
	 */
	MYSQL("INSERT INTO %1$s (resource, token) VALUES (?, ?)"
			+ " ON DUPLICATE KEY UPDATE token = GREATEST(token, VALUES(token))", false);

	private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)?");

	private final String advance;

	private final boolean rowCountTellsAcceptance;

	FenceDialect(String advance, boolean rowCountTellsAcceptance) {
		this.advance = advance;
		this.rowCountTellsAcceptance = rowCountTellsAcceptance;
	}

	/**
	 * Whether a positive row count of {@link #advance(String)} means the fence was raised; when
	 * it does not (or the count is 0), the stored token decides: accepted if it is the caller's.
	 */
	boolean rowCountTellsAcceptance() {
		return this.rowCountTellsAcceptance;
	}

	String advance(String table) {
		return String.format(this.advance, table);
	}

	/**
	 * Return the statement with named parameters, {@code :resource} and {@code :token}, for
	 * clients that bind by name (Spring R2DBC's {@code DatabaseClient}).
	 */
	String advanceNamed(String table) {
		return advance(table).replaceFirst("\\?", ":resource").replaceFirst("\\?", ":token");
	}

	/**
	 * Return the dialect of a database by the product name its driver reports.
	 * @throws IllegalStateException for a database without one
	 */
	static FenceDialect of(String productName) {
		String name = productName.toLowerCase(Locale.ROOT);
		if (name.contains("postgres")) {
			return POSTGRESQL;
		}
		if (name.contains("h2")) {
			return H2;
		}
		if (name.contains("mysql") || name.contains("mariadb")) {
			return MYSQL;
		}
		throw new IllegalStateException("The fence table supports PostgreSQL, MySQL, MariaDB and H2, not '" + productName
				+ "'; fence your own rows with JdbcFencing.updateRow, which is plain SQL, instead");
	}

	/**
	 * Refuse a table or column name that is not a plain SQL identifier: names go into the
	 * statements as text. Here, apart from any JDBC class, so that the reactive helpers run
	 * without spring-jdbc.
	 * @param what what the name is, for the message
	 */
	static String identifier(String name, String what) {
		if (name == null || !IDENTIFIER.matcher(name).matches()) {
			throw new IllegalArgumentException(what + " must be a plain SQL identifier (letters, digits and '_',"
					+ " optionally after a schema and a dot) but was '" + name + "'");
		}
		return name;
	}

}

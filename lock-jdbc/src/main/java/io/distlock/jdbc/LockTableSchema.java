package io.distlock.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;

import javax.sql.DataSource;

import io.distlock.core.LockConfigurationException;

/**
 * The lease table's schema: the script that creates it, and the check a registry makes when it
 * is built, so that a missing table, a missing column or another database fails at startup with
 * its name rather than at the first lock.
 */
public final class LockTableSchema {

	/** The classpath location of the PostgreSQL script, usable from Flyway or Liquibase. */
	public static final String SCRIPT_LOCATION = "META-INF/distlock/jdbc/schema-postgresql.sql";

	/** The table name the script creates. */
	public static final String DEFAULT_TABLE_NAME = "distlock_lock";

	/** PostgreSQL's SQLSTATE for a table that does not exist. */
	private static final String UNDEFINED_TABLE = "42P01";

	/** PostgreSQL's SQLSTATE for a column that does not exist. */
	private static final String UNDEFINED_COLUMN = "42703";

	private LockTableSchema() {
	}

	/**
	 * Return the script that creates the lease table, for another table name.
	 * @param tableName the table name
	 * @return the script's SQL, {@code CREATE TABLE IF NOT EXISTS}
	 */
	public static String script(String tableName) {
		String table = LockTableStatements.identifier(tableName);
		try (InputStream in = LockTableSchema.class.getClassLoader().getResourceAsStream(SCRIPT_LOCATION)) {
			if (in == null) {
				throw new IllegalStateException("Missing classpath resource '" + SCRIPT_LOCATION + "'");
			}
			return new String(in.readAllBytes(), StandardCharsets.UTF_8).replace(DEFAULT_TABLE_NAME, table);
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not read classpath resource '" + SCRIPT_LOCATION + "'", ex);
		}
	}

	/**
	 * Create the lease table if it does not exist.
	 * @param dataSource the database
	 * @param tableName the table name
	 * @throws LockConfigurationException if the script fails
	 */
	static void initialize(DataSource dataSource, String tableName) {
		try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
			connection.setAutoCommit(true);
			statement.execute(script(tableName));
		}
		catch (SQLException ex) {
			throw new LockConfigurationException("Could not create lock table '" + tableName + "' with "
					+ SCRIPT_LOCATION + ": " + ex.getMessage(), ex);
		}
	}

	/**
	 * Check that the database is PostgreSQL and that the lease table has every column.
	 * @param dataSource the database
	 * @param statements the table's statements
	 * @throws LockConfigurationException naming the table, the column or the database
	 */
	static void validate(DataSource dataSource, LockTableStatements statements) {
		String table = statements.table();
		try (Connection connection = dataSource.getConnection()) {
			String product = connection.getMetaData().getDatabaseProductName();
			if (!product.toLowerCase(Locale.ROOT).contains("postgres")) {
				throw new LockConfigurationException("PostgresLockRegistry needs PostgreSQL, but the DataSource is '"
						+ product + "'");
			}
			connection.setAutoCommit(true);
			try (Statement statement = connection.createStatement()) {
				statement.setQueryTimeout(10);
				statement.executeQuery(statements.probe()).close();
			}
		}
		catch (SQLException ex) {
			if (UNDEFINED_TABLE.equals(ex.getSQLState())) {
				throw new LockConfigurationException("Lock table '" + table + "' does not exist: create it with "
						+ SCRIPT_LOCATION + " (Flyway, Liquibase), set distlock.jdbc.initialize-schema=always, or"
						+ " name another table with distlock.jdbc.table-name", ex);
			}
			if (UNDEFINED_COLUMN.equals(ex.getSQLState())) {
				throw new LockConfigurationException("Lock table '" + table + "' lacks a column that "
						+ SCRIPT_LOCATION + " creates: " + ex.getMessage(), ex);
			}
			throw new LockConfigurationException("Could not check lock table '" + table + "': " + ex.getMessage(),
					ex);
		}
	}

}

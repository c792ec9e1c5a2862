package io.distlock.fencing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

import javax.sql.DataSource;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The {@code stock} table of the fenced-write tests, beside the fence table, on one database:
 * rows of an amount and a fence token column, written in transactions that a refused fence rolls
 * back.
 * @param jdbc the database's client
 * @param transactions transactions on the database
 * @param fencing the fence of the database
 */
record StockTable(JdbcClient jdbc, TransactionTemplate transactions, JdbcFencing fencing) {

	/**
	 * Create the fence table from the shipped {@code schema-<database>.sql} and the stock table,
	 * unless they exist.
	 * @param dataSource the database
	 * @param database the schema's database name, such as {@code "postgresql"}
	 */
	static void create(DataSource dataSource, String database) {
		JdbcClient jdbc = JdbcClient.create(dataSource);
		try (InputStream in = JdbcFencing.class.getResourceAsStream("schema-" + database + ".sql")) {
			jdbc.sql(new String(in.readAllBytes(), StandardCharsets.UTF_8)).update();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		jdbc.sql("CREATE TABLE IF NOT EXISTS stock (id VARCHAR(255) PRIMARY KEY, amount INT NOT NULL,"
				+ " fence_token BIGINT)").update();
	}

	/**
	 * The stock table of a database whose tables exist.
	 * @param dataSource the database
	 * @return the table
	 */
	static StockTable on(DataSource dataSource) {
		return new StockTable(JdbcClient.create(dataSource),
				new TransactionTemplate(new DataSourceTransactionManager(dataSource)), new JdbcFencing(dataSource));
	}

	void insert(String key, int amount) {
		this.jdbc.sql("INSERT INTO stock (id, amount) VALUES (?, ?)").params(key, amount).update();
	}

	/** Write the stock in a transaction, then fence it: a refused fence rolls the write back. */
	void writeThenFence(String key, int amount, Runnable fence) {
		this.transactions.executeWithoutResult((status) -> {
			update(key, amount);
			fence.run();
		});
	}

	/** In one transaction: run the fence, then set the stock. */
	void fenceThenWrite(String key, int amount, Runnable fence) {
		this.transactions.executeWithoutResult((status) -> {
			fence.run();
			update(key, amount);
		});
	}

	void update(String key, int amount) {
		this.jdbc.sql("UPDATE stock SET amount = ? WHERE id = ?").params(amount, key).update();
	}

	int stock(String key) {
		return this.jdbc.sql("SELECT amount FROM stock WHERE id = ?").param(key).query(Integer.class).single();
	}

}

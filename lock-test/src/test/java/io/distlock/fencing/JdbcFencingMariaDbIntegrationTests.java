package io.distlock.fencing;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.mariadb.jdbc.MariaDbDataSource;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import io.distlock.core.LockLease;
import io.distlock.core.LockRequest;
import io.distlock.core.StaleFencingTokenException;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.test.redis.RedisServerExtension;
import io.distlock.test.registry.LockRegistries;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The fence table's MySQL/MariaDB DDL ({@code schema-mariadb.sql}) and fenced writes on a real
 * MariaDB server started by the test (Debian's {@code mariadb-server}), under locks of two
 * registries on a real Redis: a holder paused past its fixed lease writes after the next holder,
 * and its write is refused through the fence table and through a row's token column, and its
 * transaction rolls back; several writes of one hold all pass; without the fence the stale write
 * lands (the negative control). Each runs with the driver's default row counts (found rows) and
 * with {@code useAffectedRows=true} (changed rows), which count an unchanged row differently.
 * Without a MariaDB server the tests are skipped, saying why, except when {@code CI=true}: there
 * they fail.
 */
@Timeout(180)
class JdbcFencingMariaDbIntegrationTests {

	private static final Duration SHORT_LEASE = Duration.ofMillis(300);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockRegistries registries = LockRegistries.on(redis);

	private static MariaDbServer mariadb;

	private RedisLockRegistry first;

	private RedisLockRegistry second;

	private String key;

	@BeforeAll
	static void startMariaDb() throws Exception {
		Optional<List<Path>> binaries = MariaDbServer.binaries();
		if (binaries.isEmpty() && "true".equalsIgnoreCase(System.getenv("CI"))) {
			throw new AssertionError("CI=true but no MariaDB server: " + MariaDbServer.whereLooked());
		}
		assumeTrue(binaries.isPresent(), () -> "No MariaDB server: " + MariaDbServer.whereLooked());
		mariadb = MariaDbServer.start(binaries.get());
		JdbcClient jdbc = JdbcClient.create(mariadb.dataSource());
		try (InputStream in = JdbcFencing.class.getResourceAsStream("schema-mariadb.sql")) {
			jdbc.sql(new String(in.readAllBytes(), StandardCharsets.UTF_8)).update();
		}
		jdbc.sql("CREATE TABLE stock (id VARCHAR(255) PRIMARY KEY, amount INT NOT NULL, fence_token BIGINT)")
			.update();
	}

	@AfterAll
	static void stopMariaDb() throws Exception {
		if (mariadb != null) {
			mariadb.close();
		}
	}

	@BeforeEach
	void startRegistries() {
		this.first = this.registries.redis();
		this.second = this.registries.redis();
		this.key = "stock:" + UUID.randomUUID();
	}

	@ParameterizedTest
	@ValueSource(booleans = { false, true })
	void aStaleHoldersWriteIsRefusedByTheFenceTableAndRollsBack(boolean useAffectedRows) throws Exception {
		Database db = database(useAffectedRows);
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
	@ValueSource(booleans = { false, true })
	void severalWritesOfOneHoldPassAndANewerHoldPassesAfterThem(boolean useAffectedRows) throws Exception {
		Database db = database(useAffectedRows);
		LockLease older = this.first.acquire(this.key, Duration.ofSeconds(2));
		db.write(this.key, 1, () -> db.fencing.advance(this.key, older));
		db.write(this.key, 2, () -> db.fencing.advance(this.key, older));
		older.release();
		LockLease newer = this.second.acquire(this.key, Duration.ofSeconds(2));
		db.write(this.key, 3, () -> db.fencing.advance(this.key, newer));
		db.write(this.key, 4, () -> db.fencing.advance(this.key, newer));
		newer.release();
		assertThat(db.stock(this.key)).isEqualTo(4);
	}

	@ParameterizedTest
	@ValueSource(booleans = { false, true })
	void aStaleHoldersRowUpdateIsRefusedThroughTheRowsTokenColumn(boolean useAffectedRows) throws Exception {
		Database db = database(useAffectedRows);
		Stale stale = staleHolderAndNewHolder();
		db.fencing.updateRow("stock", "id", this.key, Map.of("amount", 10), JdbcFencing.DEFAULT_TOKEN_COLUMN,
				stale.newer());
		assertThatExceptionOfType(StaleFencingTokenException.class).isThrownBy(() -> db.fencing.updateRow("stock",
				"id", this.key, Map.of("amount", 999), JdbcFencing.DEFAULT_TOKEN_COLUMN, stale.older()));
		assertThat(db.stock(this.key)).isEqualTo(10);
	}

	@ParameterizedTest
	@ValueSource(booleans = { false, true })
	void negativeControlWithoutTheFenceTheStaleWriteLands(boolean useAffectedRows) throws Exception {
		Database db = database(useAffectedRows);
		staleHolderAndNewHolder();
		db.write(this.key, 10, () -> {
		});
		db.write(this.key, 999, () -> {
		});
		assertThat(db.stock(this.key)).isEqualTo(999);
	}

	/**
	 * The first registry takes the key with a short fixed lease and keeps its lease while it
	 * runs out (a holder paused past its lease); the second takes the key after it.
	 */
	private Stale staleHolderAndNewHolder() {
		LockLease older = this.first.acquire(LockRequest.of(this.key).waitTime(Duration.ofSeconds(2)).leaseTime(SHORT_LEASE));
		await().atMost(Duration.ofSeconds(10)).until(() -> !older.isValid());
		LockLease newer = this.second.acquire(this.key, Duration.ofSeconds(5));
		assertThat(newer.fencingToken()).isGreaterThan(older.fencingToken());
		return new Stale(older, newer);
	}

	private Database database(boolean useAffectedRows) throws Exception {
		MariaDbDataSource dataSource = new MariaDbDataSource(
				mariadb.jdbcUrl() + "?useAffectedRows=" + useAffectedRows);
		dataSource.setUser("fence");
		dataSource.setPassword("fence");
		JdbcClient jdbc = JdbcClient.create(dataSource);
		jdbc.sql("INSERT INTO stock (id, amount) VALUES (?, 0)").param(this.key).update();
		return new Database(jdbc, new TransactionTemplate(new DataSourceTransactionManager(dataSource)),
				new JdbcFencing(dataSource));
	}

	private record Stale(LockLease older, LockLease newer) {
	}

	private record Database(JdbcClient jdbc, TransactionTemplate transactions, JdbcFencing fencing) {

		/** In one transaction: run the fence, then set the stock. */
		void write(String key, int amount, Runnable fence) {
			this.transactions.executeWithoutResult((status) -> {
				fence.run();
				this.jdbc.sql("UPDATE stock SET amount = ? WHERE id = ?").params(amount, key).update();
			});
		}

		int stock(String key) {
			return this.jdbc.sql("SELECT amount FROM stock WHERE id = ?").param(key).query(Integer.class).single();
		}

	}

}

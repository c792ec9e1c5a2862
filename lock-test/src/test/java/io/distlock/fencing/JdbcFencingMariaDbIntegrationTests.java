package io.distlock.fencing;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.mariadb.jdbc.MariaDbDataSource;

import io.distlock.core.LockLease;
import io.distlock.core.StaleFencingTokenException;
import io.distlock.fencing.StaleHolders.Holds;
import io.distlock.test.redis.RedisServerExtension;
import io.distlock.test.registry.LockRegistries;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
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

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockRegistries registries = LockRegistries.on(redis);

	private static MariaDbServer mariadb;

	private StaleHolders holders;

	private String key;

	@BeforeAll
	static void startMariaDb() throws Exception {
		Optional<List<Path>> binaries = MariaDbServer.binaries();
		if (binaries.isEmpty() && "true".equalsIgnoreCase(System.getenv("CI"))) {
			throw new AssertionError("CI=true but no MariaDB server: " + MariaDbServer.whereLooked());
		}
		assumeTrue(binaries.isPresent(), () -> "No MariaDB server: " + MariaDbServer.whereLooked());
		mariadb = MariaDbServer.start(binaries.get());
		StockTable.create(mariadb.dataSource(), "mariadb");
	}

	@AfterAll
	static void stopMariaDb() throws Exception {
		if (mariadb != null) {
			mariadb.close();
		}
	}

	@BeforeEach
	void startRegistries() {
		this.holders = new StaleHolders(this.registries, "stock");
		this.key = this.holders.key();
	}

	@ParameterizedTest
	@ValueSource(booleans = { false, true })
	void aStaleHoldersWriteIsRefusedByTheFenceTableAndRollsBack(boolean useAffectedRows) throws Exception {
		StockTable db = database(useAffectedRows);
		Holds stale = this.holders.staleAndNewer();
		db.fenceThenWrite(this.key, 10, () -> db.fencing().advance(this.key, stale.newer()));
		assertThatExceptionOfType(StaleFencingTokenException.class)
			.isThrownBy(() -> db.fenceThenWrite(this.key, 999, () -> db.fencing().advance(this.key, stale.older())))
			.satisfies((ex) -> {
				assertThat(ex.getFencingToken()).isEqualTo(stale.older().fencingToken());
				assertThat(ex.getCurrentToken()).isEqualTo(stale.newer().fencingToken());
			});
		assertThat(db.stock(this.key)).as("the stale write rolled back").isEqualTo(10);
	}

	@ParameterizedTest
	@ValueSource(booleans = { false, true })
	void severalWritesOfOneHoldPassAndANewerHoldPassesAfterThem(boolean useAffectedRows) throws Exception {
		StockTable db = database(useAffectedRows);
		LockLease older = this.holders.first().acquire(this.key, Duration.ofSeconds(2));
		db.fenceThenWrite(this.key, 1, () -> db.fencing().advance(this.key, older));
		db.fenceThenWrite(this.key, 2, () -> db.fencing().advance(this.key, older));
		older.release();
		LockLease newer = this.holders.second().acquire(this.key, Duration.ofSeconds(2));
		db.fenceThenWrite(this.key, 3, () -> db.fencing().advance(this.key, newer));
		db.fenceThenWrite(this.key, 4, () -> db.fencing().advance(this.key, newer));
		newer.release();
		assertThat(db.stock(this.key)).isEqualTo(4);
	}

	@ParameterizedTest
	@ValueSource(booleans = { false, true })
	void aStaleHoldersRowUpdateIsRefusedThroughTheRowsTokenColumn(boolean useAffectedRows) throws Exception {
		StockTable db = database(useAffectedRows);
		Holds stale = this.holders.staleAndNewer();
		db.fencing().updateRow("stock", "id", this.key, Map.of("amount", 10), JdbcFencing.DEFAULT_TOKEN_COLUMN,
				stale.newer());
		assertThatExceptionOfType(StaleFencingTokenException.class).isThrownBy(() -> db.fencing().updateRow("stock",
				"id", this.key, Map.of("amount", 999), JdbcFencing.DEFAULT_TOKEN_COLUMN, stale.older()));
		assertThat(db.stock(this.key)).isEqualTo(10);
	}

	@ParameterizedTest
	@ValueSource(booleans = { false, true })
	void negativeControlWithoutTheFenceTheStaleWriteLands(boolean useAffectedRows) throws Exception {
		StockTable db = database(useAffectedRows);
		this.holders.staleAndNewer();
		db.fenceThenWrite(this.key, 10, () -> {
		});
		db.fenceThenWrite(this.key, 999, () -> {
		});
		assertThat(db.stock(this.key)).isEqualTo(999);
	}

	private StockTable database(boolean useAffectedRows) throws Exception {
		MariaDbDataSource dataSource = new MariaDbDataSource(
				mariadb.jdbcUrl() + "?useAffectedRows=" + useAffectedRows);
		dataSource.setUser("fence");
		dataSource.setPassword("fence");
		StockTable table = StockTable.on(dataSource);
		table.insert(this.key, 0);
		return table;
	}

}

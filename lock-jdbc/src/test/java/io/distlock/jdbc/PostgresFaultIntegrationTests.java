package io.distlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.distlock.core.LockAcquisitionException;
import io.distlock.core.LockLease;
import io.distlock.core.LockLostException;
import io.distlock.core.LockRequest;
import io.distlock.core.StaleFencingTokenException;
import io.distlock.fencing.JdbcFencing;
import io.distlock.test.postgres.PostgresProcess;
import io.distlock.test.registry.LockRegistries;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatRuntimeException;
import static org.awaitility.Awaitility.await;

/**
 * The PostgreSQL store under faults of its server, each on a real PostgreSQL 18 of its own that
 * the test pauses, kills and restarts by process id: nothing is ever held twice, a holder whose
 * lease could not be kept is told, and a waiter's wait time stays a hard bound when the server
 * does not answer.
 */
@Tag("fault")
@Timeout(120)
class PostgresFaultIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(2);

	@RegisterExtension
	final LockRegistries registries = new LockRegistries();

	private PostgresProcess server;

	private final CopyOnWriteArrayList<HikariDataSource> pools = new CopyOnWriteArrayList<>();

	@BeforeEach
	void startServer() throws Exception {
		this.server = PostgresProcess.start();
		try (Connection connection = this.server.dataSource().getConnection();
				Statement statement = connection.createStatement()) {
			statement.execute(LockTableSchema.script(LockTableSchema.DEFAULT_TABLE_NAME));
		}
	}

	@AfterEach
	void stopServer() throws Exception {
		this.pools.forEach(HikariDataSource::close);
		this.server.close();
	}

	/** A registry on a pool of its own, as another process would have. */
	private PostgresLockRegistry registry(Duration leaseTime) {
		HikariDataSource pool = PostgresServerExtension.pool(this.server.dataSource(), 10);
		this.pools.add(pool);
		return this.registries.add(PostgresLockRegistry.builder(pool).leaseTime(leaseTime).build());
	}

	@Test
	void pausedServerFailsAWaiterWithinItsWaitTimeAndTheHealthCheckWithinASecond() throws Exception {
		String key = this.registries.randomKey();
		PostgresLockRegistry holder = registry(Duration.ofSeconds(30));
		PostgresLockRegistry waiting = registry(Duration.ofSeconds(30));
		LockLease held = holder.acquire(key, WAIT);
		Future<Long> waitedNanos = this.registries.executor().submit(() -> {
			long start = System.nanoTime();
			try {
				Optional<LockLease> lease = waiting.tryAcquire(key, WAIT);
				assertThat(lease).isEmpty();
			}
			catch (LockAcquisitionException ex) {
				// Failed with the store's timeout as cause: a failure as good as an empty answer.
			}
			return System.nanoTime() - start;
		});
		await().atMost(Duration.ofSeconds(5)).until(() -> awaited(key));
		// Negative control: a plain JDBC query without a timeout, on a session opened before.
		Connection plain = this.server.dataSource().getConnection();
		this.server.pause();
		try {
			Future<?> plainQuery = this.registries.executor().submit(() -> query(plain, "SELECT 1"));
			long checkStart = System.nanoTime();
			assertThatRuntimeException().isThrownBy(waiting::checkStore);
			Duration health = Duration.ofNanos(System.nanoTime() - checkStart);
			Duration waited = Duration.ofNanos(waitedNanos.get(10, TimeUnit.SECONDS));
			assertThat(waited).isLessThanOrEqualTo(WAIT.plusMillis(200));
			assertThat(health).isLessThanOrEqualTo(Duration.ofMillis(1100));
			assertThat(plainQuery.isDone()).as("a query without a timeout still hangs").isFalse();
		}
		finally {
			this.server.resume();
		}
		held.release();
		plain.close();
	}

	@Test
	void terminatedBackendsLeaveTheLeaseHeldWhereASessionLockIsLost() throws Exception {
		String key = this.registries.randomKey();
		PostgresLockRegistry holder = registry(Duration.ofMillis(900));
		PostgresLockRegistry other = registry(Duration.ofSeconds(30));
		LockLease lease = holder.acquire(key, WAIT);
		CopyOnWriteArrayList<LockLostException> lost = new CopyOnWriteArrayList<>();
		lease.onLost(lost::add);
		// Negative control: an advisory lock, which belongs to its session.
		Connection advisory = this.server.dataSource().getConnection();
		query(advisory, "SELECT pg_advisory_lock(42)");
		for (int round = 0; round < 3; round++) {
			terminateOtherBackends();
			Thread.sleep(900);
		}
		assertThat(tryAdvisoryLock(42)).as("the advisory lock went with its session").isTrue();
		assertThat(lease.isValid()).isTrue();
		assertThat(lost).isEmpty();
		assertThat(other.tryAcquire(key, Duration.ZERO)).isEmpty();
		// The LISTEN connection was terminated too: a waiter is still woken by the release.
		Future<Boolean> waiter = this.registries.executor().submit(
				() -> other.tryAcquire(key, Duration.ofSeconds(20)).map(this::release).isPresent());
		await().atMost(Duration.ofSeconds(5)).until(() -> awaited(key));
		lease.release();
		assertThat(waiter.get(20, TimeUnit.SECONDS)).isTrue();
		advisory.close();
	}

	@Test
	void serverKilledUnderAHolderAndRestartedLaterTellsItAndHandsTheKeyOnOnce() throws Exception {
		String key = this.registries.randomKey();
		PostgresLockRegistry holder = registry(Duration.ofMillis(1500));
		LockLease lease = holder.acquire(key, WAIT);
		CopyOnWriteArrayList<LockLostException> lost = new CopyOnWriteArrayList<>();
		lease.onLost(lost::add);
		this.server.crash();
		await().atMost(Duration.ofSeconds(5)).until(() -> !lost.isEmpty());
		assertThat(lease.isValid()).isFalse();
		this.server.restart();
		PostgresLockRegistry other = registry(Duration.ofSeconds(30));
		try (LockLease next = other.acquire(key, Duration.ofSeconds(10))) {
			assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
			assertThat(lease.isValid()).isFalse();
		}
		assertThat(lost).hasSize(1);
	}

	@Test
	void serverKilledAndRestartedWithinTheLeaseKeepsTheHolderAndNobodyElseGetsIn() throws Exception {
		String key = this.registries.randomKey();
		PostgresLockRegistry holder = registry(Duration.ofSeconds(10));
		LockLease lease = holder.acquire(key, WAIT);
		this.server.crash();
		this.server.restart();
		PostgresLockRegistry other = registry(Duration.ofSeconds(30));
		// The grant was committed before the crash: the row outlives it.
		assertThat(other.tryAcquire(key, Duration.ofMillis(500))).isEmpty();
		await().atMost(Duration.ofSeconds(10)).until(() -> lease.confirm());
		lease.release();
		try (LockLease next = other.acquire(key, WAIT)) {
			assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
		}
	}

	@Test
	void staleHolderAfterItsLeaseExpiredIsRefusedAtTheFencedWrite() throws Exception {
		try (Connection connection = this.server.dataSource().getConnection();
				Statement statement = connection.createStatement()) {
			statement.execute(new String(getClass().getClassLoader()
				.getResourceAsStream("io/distlock/fencing/schema-postgresql.sql")
				.readAllBytes()));
			statement.execute("CREATE TABLE stock (id INT PRIMARY KEY, quantity INT)");
			statement.execute("INSERT INTO stock VALUES (42, 10)");
		}
		String key = this.registries.randomKey();
		DataSource dataSource = this.server.dataSource();
		JdbcFencing fencing = new JdbcFencing(dataSource);
		LockLease stale = registry(Duration.ofSeconds(30))
			.acquire(LockRequest.of(key).waitTime(WAIT).leaseTime(Duration.ofMillis(300)));
		await().atMost(Duration.ofSeconds(5)).until(() -> !stale.isValid());
		LockLease current = registry(Duration.ofSeconds(30)).acquire(key, WAIT);
		assertThat(current.fencingToken()).isGreaterThan(stale.fencingToken());
		fencing.advance("stock:42", current);
		assertThatExceptionOfType(StaleFencingTokenException.class)
			.isThrownBy(() -> fencing.advance("stock:42", stale));
		// Negative control: the same stale holder's unfenced write lands.
		try (Connection connection = dataSource.getConnection();
				PreparedStatement update = connection.prepareStatement("UPDATE stock SET quantity = 0 WHERE id = 42")) {
			assertThat(update.executeUpdate()).isEqualTo(1);
		}
		current.release();
	}

	private boolean awaited(String key) throws SQLException {
		try (Connection connection = this.server.dataSource().getConnection();
				PreparedStatement statement = connection.prepareStatement(
						"SELECT 1 FROM distlock_lock WHERE lock_key = ? AND awaited_until > clock_timestamp()")) {
			statement.setString(1, key);
			try (ResultSet rows = statement.executeQuery()) {
				return rows.next();
			}
		}
	}

	private void terminateOtherBackends() throws SQLException {
		try (Connection connection = this.server.dataSource().getConnection()) {
			query(connection, "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
					+ " WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'");
		}
	}

	private boolean tryAdvisoryLock(long id) throws SQLException {
		try (Connection connection = this.server.dataSource().getConnection();
				ResultSet rows = connection.createStatement().executeQuery("SELECT pg_try_advisory_lock(" + id + ")")) {
			rows.next();
			return rows.getBoolean(1);
		}
	}

	private static Void query(Connection connection, String sql) throws SQLException {
		try (Statement statement = connection.createStatement(); ResultSet rows = statement.executeQuery(sql)) {
			rows.next();
		}
		return null;
	}

	private boolean release(LockLease lease) {
		lease.release();
		return true;
	}

}

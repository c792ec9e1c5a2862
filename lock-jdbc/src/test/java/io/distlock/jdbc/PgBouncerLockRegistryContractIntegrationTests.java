package io.distlock.jdbc;

import java.time.Duration;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.distlock.engine.AbstractLockRegistry;
import io.distlock.test.contract.AbstractLockRegistryContractTests;

/**
 * The registry contract behind pgbouncer in transaction mode, where a session lock (an advisory
 * lock) breaks: every lock statement goes through pgbouncer (pgbouncer #617's setup), only the one
 * {@code LISTEN} connection goes to the server directly ({@code listenDataSource}). Needs Debian's
 * {@code pgbouncer}; skipped with the reason without it, and failing under {@code CI=true}.
 */
@Tag("fault")
class PgBouncerLockRegistryContractIntegrationTests extends AbstractLockRegistryContractTests {

	@RegisterExtension
	static final PostgresServerExtension postgres = new PostgresServerExtension();

	private static PgBouncer bouncer;

	private static HikariDataSource pool;

	@BeforeAll
	static void startPgBouncer() throws Exception {
		if (!PgBouncer.unavailableReason().isEmpty()) {
			if ("true".equals(System.getenv("CI"))) {
				throw new IllegalStateException(PgBouncer.unavailableReason().get(0) + " (CI=true: not skipped)");
			}
			Assumptions.abort(PgBouncer.unavailableReason().get(0));
		}
		bouncer = PgBouncer.start(postgres.postgres().getPort());
		pool = PostgresServerExtension.pool(bouncer.dataSource(), 40);
	}

	@AfterAll
	static void stopPgBouncer() throws Exception {
		if (pool != null) {
			pool.close();
		}
		if (bouncer != null) {
			bouncer.close();
		}
	}

	@Override
	public AbstractLockRegistry createRegistry(Duration leaseTime) {
		return PostgresLockRegistry.builder(pool)
			.listenDataSource(postgres.dataSource())
			.leaseTime(leaseTime)
			.build();
	}

	@Override
	public void deleteInStore(AbstractLockRegistry registry, String key) {
		postgres.update("DELETE FROM distlock_lock WHERE lock_key = ?", key);
	}

	@Override
	public boolean isHeldInStore(AbstractLockRegistry registry, String key) {
		return postgres.exists("SELECT 1 FROM distlock_lock WHERE lock_key = ? AND expires_at > clock_timestamp()",
				key);
	}

	@Override
	public boolean offersFairAndReadWriteLocks() {
		return false;
	}

}

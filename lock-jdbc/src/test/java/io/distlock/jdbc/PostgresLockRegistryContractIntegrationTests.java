package io.distlock.jdbc;

import java.time.Duration;

import org.junit.jupiter.api.extension.RegisterExtension;

import io.distlock.engine.AbstractLockRegistry;
import io.distlock.test.contract.AbstractLockRegistryContractTests;

/**
 * The registry contract on a real PostgreSQL 18: each registry is a separate set of connections
 * and threads, as another process would be. Fair and read/write locks are refused by this store,
 * so their part of the contract is skipped.
 */
class PostgresLockRegistryContractIntegrationTests extends AbstractLockRegistryContractTests {

	@RegisterExtension
	static final PostgresServerExtension postgres = new PostgresServerExtension();

	@Override
	public AbstractLockRegistry createRegistry(Duration leaseTime) {
		return PostgresLockRegistry.builder(postgres.dataSource()).leaseTime(leaseTime).build();
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

package io.distlock.jdbc;

import java.time.Duration;

import com.zaxxer.hikari.HikariDataSource;

import io.distlock.core.LockLease;

/**
 * A process that holds or waits for one key on PostgreSQL, for tests that run it with its wall
 * clock set apart ({@link FakeTime}). Arguments: port, key, lease time in milliseconds,
 * {@code hold} or {@code wait}. Prints its {@link ClockSkew} first; then, to hold, acquires the
 * key (its watchdog renews it), prints {@code HELD <token>} and stays until killed; to wait,
 * prints {@code WAITING}, waits up to a minute, prints {@code ACQUIRED <token>}, releases and exits.
 */
public final class SkewedLockMain {

	private SkewedLockMain() {
	}

	public static void main(String[] args) throws Exception {
		HikariDataSource pool = PostgresServerExtension.pool(Integer.parseInt(args[0]), 4);
		ClockSkew.printAndCheck(pool);
		PostgresLockRegistry registry = PostgresLockRegistry.builder(pool)
			.leaseTime(Duration.ofMillis(Long.parseLong(args[2])))
			.build();
		if ("hold".equals(args[3])) {
			LockLease lease = registry.acquire(args[1], Duration.ofSeconds(10));
			System.out.println("HELD " + lease.fencingToken());
			Thread.sleep(Duration.ofMinutes(5).toMillis());
		}
		else {
			System.out.println("WAITING");
			try (LockLease lease = registry.acquire(args[1], Duration.ofMinutes(1))) {
				System.out.println("ACQUIRED " + lease.fencingToken());
			}
		}
		System.out.flush();
		registry.close();
		pool.close();
		System.exit(0);
	}

}

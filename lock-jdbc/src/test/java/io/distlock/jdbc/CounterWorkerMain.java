package io.distlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariDataSource;

import io.distlock.core.DistLock;

/**
 * A process whose threads increment a non-atomic counter row in PostgreSQL (read, sleep 1 ms,
 * write, each its own autocommit statement) under a {@link PostgresLockRegistry} lock or, for the
 * negative control, without it. Arguments: port, lock key, counter id, threads, increments per
 * thread, {@code locked} or {@code unlocked}. Prints its clock's {@link ClockSkew} first (and fails
 * if it was told to expect another), then {@code DONE failures=<n>}, counting worker threads that
 * died.
 */
public final class CounterWorkerMain {

	private CounterWorkerMain() {
	}

	public static void main(String[] args) throws Exception {
		HikariDataSource pool = PostgresServerExtension.pool(Integer.parseInt(args[0]), 16);
		ClockSkew.printAndCheck(pool);
		PostgresLockRegistry registry = PostgresLockRegistry.builder(pool).build();
		String counter = args[2];
		int threads = Integer.parseInt(args[3]);
		int increments = Integer.parseInt(args[4]);
		DistLock lock = "locked".equals(args[5]) ? registry.obtain(args[1]) : null;
		AtomicInteger failures = new AtomicInteger();
		List<Thread> workers = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			Thread worker = new Thread(() -> {
				try {
					for (int i = 0; i < increments; i++) {
						if (lock != null) {
							lock.lock();
						}
						try {
							increment(pool, counter);
						}
						finally {
							if (lock != null) {
								lock.unlock();
							}
						}
					}
				}
				catch (Exception | Error ex) {
					ex.printStackTrace();
					failures.incrementAndGet();
				}
			});
			workers.add(worker);
			worker.start();
		}
		for (Thread worker : workers) {
			worker.join(TimeUnit.SECONDS.toMillis(90));
		}
		System.out.println("DONE failures=" + failures.get());
		System.out.flush();
		registry.close();
		pool.close();
		System.exit(0);
	}

	private static void increment(HikariDataSource pool, String counter) throws SQLException, InterruptedException {
		int value;
		try (Connection connection = pool.getConnection();
				PreparedStatement read = connection.prepareStatement("SELECT value FROM counter WHERE id = ?")) {
			read.setString(1, counter);
			try (ResultSet rows = read.executeQuery()) {
				rows.next();
				value = rows.getInt(1);
			}
		}
		Thread.sleep(1);
		try (Connection connection = pool.getConnection();
				PreparedStatement write = connection.prepareStatement("UPDATE counter SET value = ? WHERE id = ?")) {
			write.setInt(1, value + 1);
			write.setString(2, counter);
			write.executeUpdate();
		}
	}

}

package io.distlock.test.process;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.postgresql.ds.PGSimpleDataSource;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import io.distlock.core.LockLease;
import io.distlock.core.StaleFencingTokenException;
import io.distlock.fencing.JdbcFencing;
import io.distlock.redis.RedisLockRegistry;

/**
 * A service instance that reserves one unit of stock on PostgreSQL under a lock with a
 * watchdog-renewed lease, and that a test freezes (SIGSTOP) between its read and its write.
 * Arguments: Redis port, JDBC URL, lock key (also the stock row's id and the fenced resource),
 * lease ms, {@code FENCED} or {@code PLAIN}. Prints {@code READ <token> <amount>} once it holds
 * the lock and has read the row; on the standard-input line {@code go} it writes the amount less
 * one in a transaction (raising the fence first when FENCED) and prints
 * {@code FENCED accepted|rejected} or {@code PLAIN done}.
 */
public final class JdbcFencedHolderMain {

	private JdbcFencedHolderMain() {
	}

	public static void main(String[] args) throws Exception {
		LettuceConnectionFactory lockFactory = WorkerThreads.connect(Integer.parseInt(args[0]));
		PGSimpleDataSource dataSource = new PGSimpleDataSource();
		dataSource.setURL(args[1]);
		String key = args[2];
		boolean fenced = "FENCED".equals(args[4]);
		RedisLockRegistry registry = RedisLockRegistry.builder(lockFactory)
			.leaseTime(Duration.ofMillis(Long.parseLong(args[3])))
			.build();
		JdbcClient jdbc = JdbcClient.create(dataSource);
		JdbcFencing fencing = new JdbcFencing(dataSource);
		TransactionTemplate transactions = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
		LockLease lease = registry.acquire(key, Duration.ofSeconds(30));
		int amount = jdbc.sql("SELECT amount FROM stock WHERE id = ?").param(key).query(Integer.class).single();
		System.out.println("READ " + lease.fencingToken() + " " + amount);
		System.out.flush();
		BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		if (!"go".equals(in.readLine())) {
			return;
		}
		try {
			transactions.executeWithoutResult((status) -> {
				if (fenced) {
					fencing.advance(key, lease);
				}
				jdbc.sql("UPDATE stock SET amount = ? WHERE id = ?").params(amount - 1, key).update();
			});
			System.out.println(fenced ? "FENCED accepted" : "PLAIN done");
		}
		catch (StaleFencingTokenException ex) {
			System.out.println("FENCED rejected " + ex.getMessage());
		}
		System.out.flush();
		System.exit(0);
	}

}

package io.distlock.test.process;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

import org.postgresql.ds.PGSimpleDataSource;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import io.distlock.core.LockLease;
import io.distlock.core.StaleFencingTokenException;
import io.distlock.fencing.JdbcFencing;
import io.distlock.fencing.RedisFencing;
import io.distlock.redis.RedisLockRegistry;

/**
 * A service instance that reserves one unit of stock under a lock with a watchdog-renewed lease,
 * and that a test freezes (SIGSTOP) between its read and its write. Arguments: Redis port, JDBC
 * URL, lock key (also the stock row's id, the fenced resource and, under {@code data:}, the Redis
 * key of the stock), lease ms, and the mode: {@code FENCED} (PostgreSQL, the fence table raised
 * before the write), {@code ROW} (PostgreSQL, the row updated through its {@code fence_token}
 * column), {@code REDIS} (Redis data read and written through {@code RedisFencing}), or
 * {@code PLAIN} (PostgreSQL, no fence). Prints {@code READ <token> <amount>} once it holds the lock
 * and has read the stock; on the standard-input line {@code go} it writes the amount less one and
 * prints {@code <mode> accepted|rejected} ({@code PLAIN accepted} for the plain write).
 */
public final class JdbcFencedHolderMain {

	private JdbcFencedHolderMain() {
	}

	public static void main(String[] args) throws Exception {
		LettuceConnectionFactory lockFactory = WorkerThreads.connect(Integer.parseInt(args[0]));
		PGSimpleDataSource dataSource = new PGSimpleDataSource();
		dataSource.setURL(args[1]);
		String key = args[2];
		String mode = args[4];
		RedisLockRegistry registry = RedisLockRegistry.builder(lockFactory)
			.leaseTime(Duration.ofMillis(Long.parseLong(args[3])))
			.build();
		JdbcClient jdbc = JdbcClient.create(dataSource);
		JdbcFencing fencing = new JdbcFencing(dataSource);
		TransactionTemplate transactions = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
		LockLease lease = registry.acquire(key, Duration.ofSeconds(30));
		RedisFencing redisFencing = new RedisFencing(new StringRedisTemplate(lockFactory));
		int amount = "REDIS".equals(mode) ? Integer.parseInt(redisFencing.get("data:" + key, lease))
				: jdbc.sql("SELECT amount FROM stock WHERE id = ?").param(key).query(Integer.class).single();
		System.out.println("READ " + lease.fencingToken() + " " + amount);
		System.out.flush();
		BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		if (!"go".equals(in.readLine())) {
			return;
		}
		try {
			if ("REDIS".equals(mode)) {
				redisFencing.set("data:" + key, Integer.toString(amount - 1), lease);
			}
			else {
				transactions.executeWithoutResult((status) -> {
					if ("ROW".equals(mode)) {
						fencing.updateRow("stock", "id", key, Map.of("amount", amount - 1),
								JdbcFencing.DEFAULT_TOKEN_COLUMN, lease);
						return;
					}
					if ("FENCED".equals(mode)) {
						fencing.advance(key, lease);
					}
					jdbc.sql("UPDATE stock SET amount = ? WHERE id = ?").params(amount - 1, key).update();
				});
			}
			System.out.println(mode + " accepted");
		}
		catch (StaleFencingTokenException ex) {
			System.out.println(mode + " rejected " + ex.getMessage());
		}
		System.out.flush();
		System.exit(0);
	}

}

package io.distlock.test.process;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

import io.distlock.core.LockLease;
import io.distlock.redis.RedisLockRegistry;

/**
 * A holder that a test can pause (SIGSTOP) while it holds a lock, then ask to write. Arguments:
 * lock Redis port, oracle Redis port, key, lease ms. Prints
 * {@code ACQUIRED <token> <acquired nanoTime> <valid until nanoTime>} and, when told,
 * {@code LOST}. Standard-input commands: {@code FENCED <value>} writes to the oracle's
 * fenced resource with the lease's token and prints {@code FENCED accepted|rejected};
 * {@code PLAIN <value>} writes without a token and prints {@code PLAIN done}.
 */
public final class FencedHolderMain {

	private static final RedisScript<Long> FENCED_WRITE = RedisScript.of(
			"local max = tonumber(redis.call('get', KEYS[1]) or '0') "
					+ "if tonumber(ARGV[1]) > max then redis.call('set', KEYS[1], ARGV[1]) "
					+ "redis.call('set', KEYS[2], ARGV[2]) return 1 end "
					+ "redis.call('incr', KEYS[3]) return 0", Long.class);

	private FencedHolderMain() {
	}

	public static void main(String[] args) throws Exception {
		LettuceConnectionFactory lockFactory = WorkerThreads.connect(Integer.parseInt(args[0]));
		StringRedisTemplate oracle = new StringRedisTemplate(WorkerThreads.connect(Integer.parseInt(args[1])));
		String key = args[2];
		RedisLockRegistry registry = RedisLockRegistry.builder(lockFactory)
			.leaseTime(Duration.ofMillis(Long.parseLong(args[3])))
			.build();
		LockLease lease = registry.acquire(key, Duration.ofSeconds(30));
		long acquiredAt = System.nanoTime();
		long validUntil = acquiredAt + lease.remaining().toNanos();
		lease.onLost((ex) -> {
			System.out.println("LOST");
			System.out.flush();
		});
		System.out.println("ACQUIRED " + lease.fencingToken() + " " + acquiredAt + " " + validUntil);
		System.out.flush();
		BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		for (String line = in.readLine(); line != null; line = in.readLine()) {
			String[] command = line.split(" ", 2);
			if ("FENCED".equals(command[0])) {
				long accepted = oracle.execute(FENCED_WRITE,
						List.of("fence:" + key, "value:" + key, "rejected:" + key),
						Long.toString(lease.fencingToken()), command[1]);
				System.out.println("FENCED " + ((accepted == 1) ? "accepted" : "rejected"));
			}
			else if ("PLAIN".equals(command[0])) {
				oracle.opsForValue().set("value:" + key, command[1]);
				System.out.println("PLAIN done");
			}
			System.out.flush();
		}
	}

}

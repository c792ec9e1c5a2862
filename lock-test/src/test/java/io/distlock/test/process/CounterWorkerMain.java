package io.distlock.test.process;

import java.time.Duration;
import java.util.List;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import io.distlock.core.DistLock;
import io.distlock.engine.AbstractLockRegistry;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.redlock.RedlockRegistry;

/**
 * A process whose threads increment a non-atomic counter in Redis (read, sleep 1 ms, write),
 * under a lock or, for the negative control, without it. Arguments: port, lock key, counter
 * key, threads, increments per thread, and the lock: {@code locked}, {@code fair},
 * {@code write}, {@code redlock} (the port is then a comma-separated list of nodes) or
 * {@code unlocked}; or {@code read}, where each thread instead holds the read
 * lock for 5 ms and records in {@code <counter key>:max} the most readers inside at once.
 * Prints {@code DONE failures=<n>}, counting worker threads that died.
 */
public final class CounterWorkerMain {

	private static final org.springframework.data.redis.core.script.RedisScript<Long> RECORD_MAX = org.springframework.data.redis.core.script.RedisScript
		.of("local v = tonumber(ARGV[1]) if v > tonumber(redis.call('get', KEYS[1]) or '0') then "
				+ "redis.call('set', KEYS[1], v) end return v", Long.class);

	private CounterWorkerMain() {
	}

	public static void main(String[] args) throws Exception {
		// Several comma-separated ports: Redlock over those nodes; the counter lives on the first.
		String[] ports = args[0].split(",");
		LettuceConnectionFactory factory = WorkerThreads.connect(Integer.parseInt(ports[0]));
		StringRedisTemplate redis = new StringRedisTemplate(factory);
		AbstractLockRegistry registry = "redlock".equals(args[5])
				? RedlockRegistry
					.builderForUris(java.util.Arrays.stream(ports).map((port) -> "redis://127.0.0.1:" + port).toList())
					.build()
				: new RedisLockRegistry(factory);
		String counterKey = args[2];
		int threads = Integer.parseInt(args[3]);
		int increments = Integer.parseInt(args[4]);
		String mode = args[5];
		DistLock lock = switch (mode) {
			case "locked", "redlock" -> registry.obtain(args[1]);
			case "fair" -> registry.obtainFair(args[1]);
			case "write" -> registry.obtainReadWrite(args[1]).writeLock();
			case "read" -> registry.obtainReadWrite(args[1]).readLock();
			default -> null;
		};
		boolean reading = "read".equals(mode);
		int failures = WorkerThreads.run(threads, (t) -> {
			for (int i = 0; i < increments; i++) {
				WorkerThreads.underLock(lock, () -> {
					if (reading) {
						Long inside = redis.opsForValue().increment(counterKey + ":inside");
						redis.execute(RECORD_MAX, List.of(counterKey + ":max"), Long.toString(inside));
						WorkerThreads.sleep(Duration.ofMillis(5));
						redis.opsForValue().decrement(counterKey + ":inside");
					}
					else {
						String value = redis.opsForValue().get(counterKey);
						WorkerThreads.sleep(Duration.ofMillis(1));
						redis.opsForValue().set(counterKey, Integer.toString(Integer.parseInt(value) + 1));
					}
				});
			}
		});
		System.out.println("DONE failures=" + failures);
		System.out.flush();
		registry.close();
		factory.destroy();
		System.exit(0);
	}

}

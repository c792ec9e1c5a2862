package io.distlock.test.process;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

import io.distlock.core.DistLock;
import io.distlock.redis.RedisLockRegistry;

/**
 * A process whose threads run the fault suite's exclusion workload: under the lock (or without,
 * for the negative control) each enters the oracle's witness, increments the oracle's counter
 * (read, sleep 2 ms, write) and leaves the witness. Arguments: lock port, oracle port, key,
 * threads, grants per thread, {@code locked} or {@code unlocked}. Prints
 * {@code DONE failures=<n>}.
 */
public final class WitnessWorkerMain {

	private static final RedisScript<Long> ENTER = RedisScript.of(
			"if redis.call('setnx', KEYS[1], ARGV[1]) == 1 then return 1 end "
					+ "redis.call('incr', KEYS[2]) return 0", Long.class);

	private static final RedisScript<Long> LEAVE = RedisScript.of(
			"if redis.call('get', KEYS[1]) == ARGV[1] then redis.call('del', KEYS[1]) return 1 end "
					+ "redis.call('incr', KEYS[2]) return 0", Long.class);

	private WitnessWorkerMain() {
	}

	public static void main(String[] args) throws Exception {
		RedisLockRegistry registry = new RedisLockRegistry(factory(Integer.parseInt(args[0])));
		StringRedisTemplate oracle = new StringRedisTemplate(factory(Integer.parseInt(args[1])));
		String key = args[2];
		int threads = Integer.parseInt(args[3]);
		int grants = Integer.parseInt(args[4]);
		boolean locked = "locked".equals(args[5]);
		List<String> witness = List.of("witness:" + key, "violations:" + key);
		AtomicInteger failures = new AtomicInteger();
		List<Thread> workers = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			String holder = ProcessHandle.current().pid() + "-" + t;
			Thread worker = new Thread(() -> {
				DistLock lock = registry.obtain(key);
				for (int i = 0; i < grants; i++) {
					if (locked) {
						lock.lock();
					}
					try {
						oracle.execute(ENTER, witness, holder);
						String value = oracle.opsForValue().get("counter:" + key);
						sleep(Duration.ofMillis(2));
						oracle.opsForValue().set("counter:" + key, Integer.toString(Integer.parseInt(value) + 1));
						oracle.execute(LEAVE, witness, holder);
					}
					finally {
						if (locked) {
							lock.unlock();
						}
					}
				}
			});
			worker.setUncaughtExceptionHandler((thread, ex) -> {
				failures.incrementAndGet();
				ex.printStackTrace(System.out);
			});
			worker.start();
			workers.add(worker);
		}
		for (Thread worker : workers) {
			worker.join();
		}
		System.out.println("DONE failures=" + failures.get());
		System.out.flush();
		System.exit(0);
	}

	private static LettuceConnectionFactory factory(int port) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", port));
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	private static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}

package io.distlock.test.process;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import io.distlock.core.DistLock;
import io.distlock.redis.RedisLockRegistry;

/**
 * A process whose threads wait for a fair lock on command. Arguments: port, lock key, order key.
 * Each standard-input line is a label: a new thread starts waiting for the lock, and when it is
 * granted appends its label to the order list, holds the lock 50 ms and releases it. Prints
 * {@code READY} once connected and warmed up.
 */
public final class FairWaiterMain {

	private FairWaiterMain() {
	}

	public static void main(String[] args) throws Exception {
		LettuceConnectionFactory factory = WorkerThreads.connect(Integer.parseInt(args[0]));
		StringRedisTemplate redis = new StringRedisTemplate(factory);
		RedisLockRegistry registry = new RedisLockRegistry(factory);
		// Warm up (connection, scripts, classes), so that a first waiter is not late to the queue.
		DistLock warmUp = registry.obtainFair(args[1] + ":warm-up");
		warmUp.lock();
		warmUp.unlock();
		System.out.println("READY");
		System.out.flush();
		BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		for (String label = in.readLine(); label != null; label = in.readLine()) {
			String waiter = label;
			new Thread(() -> {
				DistLock lock = registry.obtainFair(args[1]);
				try {
					if (lock.tryLock(Duration.ofSeconds(30))) {
						redis.opsForList().rightPush(args[2], waiter);
						Thread.sleep(50);
						lock.unlock();
					}
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}).start();
		}
	}

}

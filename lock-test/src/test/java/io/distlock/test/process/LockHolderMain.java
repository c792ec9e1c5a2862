package io.distlock.test.process;

import java.time.Duration;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.distlock.core.LockLease;
import io.distlock.redis.RedisLockRegistry;

/**
 * A process that takes a lock with the watchdog on and holds it until it is killed. Arguments:
 * port, key, lease in milliseconds. Prints {@code ACQUIRED <token>}.
 */
public final class LockHolderMain {

	private LockHolderMain() {
	}

	public static void main(String[] args) throws Exception {
		LettuceConnectionFactory factory = WorkerThreads.connect(Integer.parseInt(args[0]));
		RedisLockRegistry registry = RedisLockRegistry.builder(factory)
			.leaseTime(Duration.ofMillis(Long.parseLong(args[2])))
			.build();
		LockLease lease = registry.acquire(args[1], Duration.ofSeconds(30));
		System.out.println("ACQUIRED " + lease.fencingToken());
		System.out.flush();
		Thread.sleep(Long.MAX_VALUE);
	}

}

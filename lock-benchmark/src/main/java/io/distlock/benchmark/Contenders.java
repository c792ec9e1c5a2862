package io.distlock.benchmark;

import java.util.List;

import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;

import io.distlock.core.DistLock;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.test.redis.RedisServer;

/**
 * The contenders of one comparison, all on the same Redis: distlock, Redisson's {@code RLock}
 * (watchdog mode), Spring Integration's {@code RedisLockRegistry} (spin and pub/sub) and the
 * floor.
 */
final class Contenders {

	private Contenders() {
	}

	static List<Contender> all(RedisServer redis) {
		return List.of(distlock(redis), redisson(redis), springIntegration(redis, RedisLockType.SPIN_LOCK),
				springIntegration(redis, RedisLockType.PUB_SUB_LOCK), new FloorLock(redis.port()));
	}

	static Contender distlock(RedisServer redis) {
		LettuceConnectionFactory factory = redis.newConnectionFactory(java.time.Duration.ofSeconds(5));
		RedisLockRegistry registry = new RedisLockRegistry(factory);
		return new Contender() {

			@Override
			public String name() {
				return "distlock";
			}

			@Override
			public void locked(String key, Runnable section) {
				DistLock lock = registry.obtain(key);
				lock.lock();
				try {
					section.run();
				}
				finally {
					lock.unlock();
				}
			}

			@Override
			public void close() {
				registry.close();
				factory.destroy();
			}

		};
	}

	static Contender redisson(RedisServer redis) {
		Config config = new Config();
		config.useSingleServer().setAddress("redis://127.0.0.1:" + redis.port());
		RedissonClient client = Redisson.create(config);
		return new Contender() {

			@Override
			public String name() {
				return "Redisson RLock";
			}

			@Override
			public void locked(String key, Runnable section) {
				RLock lock = client.getLock(key);
				lock.lock();
				try {
					section.run();
				}
				finally {
					lock.unlock();
				}
			}

			@Override
			public void close() {
				client.shutdown();
			}

		};
	}

	static Contender springIntegration(RedisServer redis, RedisLockType type) {
		LettuceConnectionFactory factory = redis.newConnectionFactory(java.time.Duration.ofSeconds(5));
		org.springframework.integration.redis.util.RedisLockRegistry registry = new org.springframework.integration.redis.util.RedisLockRegistry(
				factory, "si-" + type);
		registry.setRedisLockType(type);
		return new Contender() {

			@Override
			public String name() {
				return "Spring Integration (" + ((type == RedisLockType.SPIN_LOCK) ? "spin" : "pub/sub") + ")";
			}

			@Override
			public void locked(String key, Runnable section) {
				java.util.concurrent.locks.Lock lock = registry.obtain(key);
				lock.lock();
				try {
					section.run();
				}
				finally {
					lock.unlock();
				}
			}

			@Override
			public void close() {
				registry.destroy();
				factory.destroy();
			}

		};
	}

}

package io.distlock.benchmark;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.UnaryOperator;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;

import io.distlock.core.LockRequest;
import io.distlock.redis.RedisLockRegistry;

/**
 * The contenders of one comparison, all on the same Redis: distlock (blocking and async),
 * Redisson's {@code RLock} (watchdog mode), Spring Integration's {@code RedisLockRegistry} (spin
 * and pub/sub) and the floor; on one thread, distlock with local handoff off; and, in the hot-key
 * scenarios of one JVM, a reference that is no distributed lock at all: a fair
 * {@link ReentrantLock}, what handing a lock between threads of one process costs on this
 * machine. {@link #runsIn} says which runs where.
 */
final class Contenders {

	static final String DISTLOCK = "distlock";

	static final String DISTLOCK_ASYNC = "distlock (async)";

	static final String DISTLOCK_NO_HANDOFF = "distlock, local handoff off";

	static final String REDISSON = "Redisson RLock";

	static final String SPRING_INTEGRATION_SPIN = "Spring Integration (spin)";

	static final String SPRING_INTEGRATION_PUB_SUB = "Spring Integration (pub/sub)";

	static final String NO_LOCK = "no lock (negative control)";

	static final String IN_PROCESS = "fair ReentrantLock, this JVM only (reference)";

	/** The async contender's wait time: longer than any scenario, as {@code lock()} waits. */
	private static final Duration ASYNC_WAIT = Duration.ofMinutes(10);

	private Contenders() {
	}

	/** The names of all contenders, in the order of the report. */
	static final List<String> NAMES = List.of(DISTLOCK, DISTLOCK_ASYNC, DISTLOCK_NO_HANDOFF, REDISSON,
			SPRING_INTEGRATION_SPIN, SPRING_INTEGRATION_PUB_SUB, FloorLock.NAME, IN_PROCESS);

	static List<Contender> all(int port) {
		return NAMES.stream().map((name) -> named(name, port)).toList();
	}

	/**
	 * Return whether the contender runs in the scenario: the in-process reference only where
	 * its threads share one key in one JVM, the only place it excludes anything and the only
	 * place a handoff between threads decides the throughput; distlock without local handoff
	 * only on one thread, to show what handoff being on costs a path that never hands over.
	 */
	static boolean runsIn(Contender contender, Scenario scenario) {
		return switch (contender.name()) {
			case IN_PROCESS -> scenario.hotKey() && scenario.jvms() == 1;
			case DISTLOCK_NO_HANDOFF -> scenario.threads() == 1 && scenario.jvms() == 1;
			default -> true;
		};
	}

	/**
	 * Create the contender of that name on the Redis at that port, as a child JVM does.
	 */
	static Contender named(String name, int port) {
		return switch (name) {
			case DISTLOCK -> distlock(port);
			case DISTLOCK_ASYNC -> distlockAsync(port);
			case DISTLOCK_NO_HANDOFF -> distlockWithoutHandoff(port);
			case REDISSON -> redisson(port);
			case SPRING_INTEGRATION_SPIN -> springIntegration(port, RedisLockType.SPIN_LOCK);
			case SPRING_INTEGRATION_PUB_SUB -> springIntegration(port, RedisLockType.PUB_SUB_LOCK);
			case FloorLock.NAME -> new FloorLock(port);
			case NO_LOCK -> noLock();
			case IN_PROCESS -> inProcess();
			default -> throw new IllegalArgumentException("No contender named '" + name + "'");
		};
	}

	/**
	 * The negative control of the exclusion check: runs the section without any lock.
	 */
	static Contender noLock() {
		return new Contender() {

			@Override
			public String name() {
				return NO_LOCK;
			}

			@Override
			public void locked(String key, Runnable section) {
				section.run();
			}

			@Override
			public void close() {
			}

		};
	}

	/**
	 * The in-process reference: a fair {@link ReentrantLock} per key, which hands the lock to the
	 * longest waiting thread as distlock's local gate does. No Redis, so it excludes only the
	 * threads of this JVM: the most a lock that hands over between threads can reach here.
	 */
	static Contender inProcess() {
		ConcurrentHashMap<String, ReentrantLock> locks = new ConcurrentHashMap<>();
		return ofLocks(IN_PROCESS, (key) -> locks.computeIfAbsent(key, (k) -> new ReentrantLock(true)), locks::clear);
	}

	private static LettuceConnectionFactory connectionFactory(int port) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", port),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(5)).build());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	static Contender distlock(int port) {
		return distlockLocks(DISTLOCK, port, UnaryOperator.identity());
	}

	/**
	 * distlock through the blocking {@code Lock} API with local handoff turned off
	 * ({@code distlock.local-handoff.max-handoffs=0}).
	 */
	static Contender distlockWithoutHandoff(int port) {
		return distlockLocks(DISTLOCK_NO_HANDOFF, port, (builder) -> builder.localHandoff(0, Duration.ofMillis(50)));
	}

	/**
	 * distlock through the blocking {@code Lock} API, on a registry with the given options.
	 */
	private static Contender distlockLocks(String name, int port, UnaryOperator<RedisLockRegistry.Builder> options) {
		LettuceConnectionFactory factory = connectionFactory(port);
		RedisLockRegistry registry = options.apply(RedisLockRegistry.builder(factory)).build();
		return ofLocks(name, registry::obtain, () -> {
			registry.close();
			factory.destroy();
		});
	}

	/**
	 * distlock through {@code executeLockedAsync}: the acquisition is a chain of continuations
	 * (no parked thread per waiter); the driver's worker thread only waits for its end.
	 */
	static Contender distlockAsync(int port) {
		LettuceConnectionFactory factory = connectionFactory(port);
		RedisLockRegistry registry = new RedisLockRegistry(factory);
		return new Contender() {

			@Override
			public String name() {
				return DISTLOCK_ASYNC;
			}

			@Override
			public void locked(String key, Runnable section) {
				registry.executeLockedAsync(LockRequest.of(key).waitTime(ASYNC_WAIT), (lease) -> {
					section.run();
					return CompletableFuture.completedFuture(null);
				}).toCompletableFuture().join();
			}

			@Override
			public void close() {
				registry.close();
				factory.destroy();
			}

		};
	}

	static Contender redisson(int port) {
		Config config = new Config();
		config.useSingleServer().setAddress("redis://127.0.0.1:" + port);
		RedissonClient client = Redisson.create(config);
		return ofLocks(REDISSON, client::getLock, client::shutdown);
	}

	static Contender springIntegration(int port, RedisLockType type) {
		LettuceConnectionFactory factory = connectionFactory(port);
		org.springframework.integration.redis.util.RedisLockRegistry registry = new org.springframework.integration.redis.util.RedisLockRegistry(
				factory, "si-" + type);
		registry.setRedisLockType(type);
		return ofLocks((type == RedisLockType.SPIN_LOCK) ? SPRING_INTEGRATION_SPIN : SPRING_INTEGRATION_PUB_SUB,
				registry::obtain, () -> {
					registry.destroy();
					factory.destroy();
				});
	}

	/**
	 * A contender whose locks are {@link Lock}s: obtain one per call, lock, run, unlock.
	 */
	static Contender ofLocks(String name, Function<String, ? extends Lock> locks, Runnable close) {
		return new Contender() {

			@Override
			public String name() {
				return name;
			}

			@Override
			public void locked(String key, Runnable section) {
				Lock lock = locks.apply(key);
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
				close.run();
			}

		};
	}

}

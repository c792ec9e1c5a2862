package io.distlock.benchmark;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

import org.redisson.Redisson;
import org.redisson.api.RLockReactive;
import org.redisson.api.RedissonClient;
import org.redisson.api.RedissonReactiveClient;
import org.redisson.config.Config;
import reactor.core.publisher.Mono;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.distlock.core.LockRequest;
import io.distlock.reactive.ReactiveLocks;
import io.distlock.redis.RedisLockRegistry;

/**
 * The contenders of the reactive scenario, on the same Redis as the blocking ones, each with its
 * defaults and only the threads of its own driver (no scheduler of the benchmark's):
 * {@link ReactiveLocks#withLock distlock's ReactiveLocks} and Redisson's {@link RLockReactive}
 * (watchdog mode, one owner id per subscriber, as its reactive API requires); and a reference
 * without any lock, the sections back to back, which is the most any lock could reach with these
 * sections on this machine.
 */
final class ReactiveContenders {

	static final String DISTLOCK = "distlock (ReactiveLocks)";

	static final String REDISSON = "Redisson RLockReactive";

	static final String NO_LOCK = "no lock (negative control)";

	static final String BACK_TO_BACK = "sections back to back, no lock (reference)";

	/** The wait time: longer than any scenario, as Redisson's {@code lock(threadId)} waits. */
	private static final Duration WAIT = Duration.ofMinutes(10);

	/**
	 * Redisson's owner ids of the subscribers start here, far from the ids of real threads, which
	 * Redisson's blocking contender in the same JVM uses.
	 */
	private static final long REDISSON_OWNER_BASE = 1L << 40;

	private ReactiveContenders() {
	}

	static List<ReactiveContender> all(int port) {
		return List.of(distlock(port), redisson(port), backToBack());
	}

	static ReactiveContender distlock(int port) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", port),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(5)).build());
		factory.afterPropertiesSet();
		factory.start();
		RedisLockRegistry registry = new RedisLockRegistry(factory);
		return new ReactiveContender() {

			@Override
			public String name() {
				return DISTLOCK;
			}

			@Override
			public Mono<Void> locked(String key, int subscriber, Mono<Void> section) {
				return ReactiveLocks.withLock(registry, LockRequest.of(key).waitTime(WAIT), (lease) -> section);
			}

			@Override
			public void close() {
				registry.close();
				factory.destroy();
			}

		};
	}

	static ReactiveContender redisson(int port) {
		Config config = new Config();
		config.useSingleServer().setAddress("redis://127.0.0.1:" + port);
		RedissonClient client = Redisson.create(config);
		RedissonReactiveClient reactive = client.reactive();
		return new ReactiveContender() {

			@Override
			public String name() {
				return REDISSON;
			}

			@Override
			public Mono<Void> locked(String key, int subscriber, Mono<Void> section) {
				long owner = REDISSON_OWNER_BASE + subscriber;
				return Mono.defer(() -> {
					RLockReactive lock = reactive.getLock(key);
					return Mono.usingWhen(lock.lock(owner).thenReturn(lock), (held) -> section,
							(held) -> held.unlock(owner));
				});
			}

			@Override
			public void close() {
				client.shutdown();
			}

		};
	}

	/**
	 * The reference: each subscriber's section starts when the one before it ends, chained in
	 * memory (each subscription waits for the previous one's future, and completes its own when
	 * its section ends), with no lock, no Redis and no thread of its own. The next section is
	 * subscribed on the thread that ended the previous one, so this measures what the sections
	 * themselves allow one after another: a {@code Mono.delay} of 200 µs takes longer than
	 * 200 µs, and the nominal bound assumes it does not.
	 */
	static ReactiveContender backToBack() {
		AtomicReference<CompletableFuture<Void>> last = new AtomicReference<>(CompletableFuture.completedFuture(null));
		return new ReactiveContender() {

			@Override
			public String name() {
				return BACK_TO_BACK;
			}

			@Override
			public Mono<Void> locked(String key, int subscriber, Mono<Void> section) {
				return Mono.defer(() -> {
					CompletableFuture<Void> mine = new CompletableFuture<>();
					CompletableFuture<Void> previous = last.getAndSet(mine);
					// Handed on as the section ends, before its subscriber hears of it, as a lock
					// released at the end of the section would be at best.
					Runnable handOn = () -> mine.complete(null);
					return Mono.fromFuture(previous, true).then(section).doOnTerminate(handOn).doOnCancel(handOn);
				});
			}

			@Override
			public void close() {
			}

		};
	}

	/**
	 * The negative control of the exclusion check: runs the section without any lock.
	 */
	static ReactiveContender noLock() {
		return new ReactiveContender() {

			@Override
			public String name() {
				return NO_LOCK;
			}

			@Override
			public Mono<Void> locked(String key, int subscriber, Mono<Void> section) {
				return section;
			}

			@Override
			public void close() {
			}

		};
	}

}

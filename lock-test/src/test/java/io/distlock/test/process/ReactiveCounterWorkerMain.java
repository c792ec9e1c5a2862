package io.distlock.test.process;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import io.distlock.core.LockRequest;
import io.distlock.reactive.ReactiveLocks;
import io.distlock.redis.RedisLockRegistry;

/**
 * A process that runs many reactive holds on one key at once, each incrementing a non-atomic
 * counter in Redis: a read, a 1 ms {@code Mono.delay} and a write, all on Lettuce's reactive
 * commands, nothing blocking. Arguments: port, lock key, counter key, holds, holds in flight at
 * once, the body ({@code mono}: {@link ReactiveLocks#withLock} with one increment;
 * {@code flux}: {@link ReactiveLocks#withLockMany} with three in a row) and {@code locked} or
 * {@code unlocked} (the negative control: the same bodies without the lock). Each increment
 * appends this process's pid to {@code <counter key>:holders}, the order the test reads back.
 * Prints {@code READY} once connected, starts on a {@code GO} line on its standard input (so
 * that two processes start together), and prints {@code DONE failures=<n>}.
 */
public final class ReactiveCounterWorkerMain {

	private ReactiveCounterWorkerMain() {
	}

	public static void main(String[] args) throws Exception {
		LettuceConnectionFactory factory = WorkerThreads.connect(Integer.parseInt(args[0]));
		ReactiveStringRedisTemplate redis = new ReactiveStringRedisTemplate(factory);
		RedisLockRegistry registry = new RedisLockRegistry(factory);
		String lockKey = args[1];
		String counterKey = args[2];
		int holds = Integer.parseInt(args[3]);
		int inFlight = Integer.parseInt(args[4]);
		boolean flux = "flux".equals(args[5]);
		boolean locked = "locked".equals(args[6]);
		String holder = Long.toString(ProcessHandle.current().pid());
		// Connections and scripts ready before the start, so that both processes compete at once.
		registry.acquire(lockKey + ":warm-up", Duration.ofSeconds(30)).release();
		redis.opsForValue().get(counterKey).block(Duration.ofSeconds(30));
		System.out.println("READY");
		System.out.flush();
		BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		while (!"GO".equals(in.readLine())) {
			// Wait for the test's start signal.
		}
		Mono<Void> increment = Mono.defer(() -> redis.opsForValue()
			.get(counterKey)
			.delayElement(Duration.ofMillis(1))
			.flatMap((value) -> redis.opsForValue().set(counterKey, Integer.toString(Integer.parseInt(value) + 1)))
			.then(redis.opsForList().rightPush(counterKey + ":holders", holder))
			.then());
		Flux<Void> body = flux ? Flux.range(0, 3).concatMap((i) -> increment) : increment.flux();
		LockRequest request = LockRequest.of(lockKey).waitTime(Duration.ofSeconds(30));
		int failures = 0;
		try {
			Flux.range(0, holds).flatMap((i) -> {
				if (!locked) {
					return body;
				}
				return flux ? ReactiveLocks.withLockMany(registry, request, (lease) -> body)
						: ReactiveLocks.withLock(registry, request, (lease) -> increment);
			}, inFlight).blockLast(Duration.ofSeconds(60));
		}
		catch (RuntimeException ex) {
			failures++;
			ex.printStackTrace(System.out);
		}
		System.out.println("DONE failures=" + failures);
		System.out.flush();
		registry.close();
		factory.destroy();
		System.exit(0);
	}

}

package io.distlock.autoconfigure.reactive;

import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.distlock.test.process.ChildJvm;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The WebFlux user's scenario that once stalled an application's own Redis: an annotated method
 * returning {@code Mono<Long>} whose body reads and writes a counter through Boot's
 * {@code ReactiveStringRedisTemplate} on the application's Lettuce connection factory; two
 * instances (this JVM and a child JVM), each subscribing 100 times at once on one key, nothing
 * warmed up, a fresh context per round. The first reactive use of Spring Data Redis connects
 * synchronously: a body subscribed on the driver's event loop made that loop wait for itself, and
 * every command on the connection stalled, renewals included, until locks were lost and waits
 * timed out.
 * <p>
 * Each round must count exactly 200 (the read and the write are apart, so an overlap loses an
 * update), with no error, no lock lost and no five seconds without a subscription ending. The
 * detector behind "where does the body run" and its negative control are in
 * {@code UserCodeThreadsIntegrationTests} (distlock-test); the overlap detector's negative control
 * (the counter loses updates without the lock) in {@code TwoInstancesIntegrationTests}.
 */
@Timeout(value = 20, unit = TimeUnit.MINUTES)
class ReactiveTemplateBodyTwoProcessIntegrationTests {

	private static final int ROUNDS = Integer.getInteger("distlock.reactive-rounds", 20);

	private static final int SUBSCRIBERS = 100;

	private static final long MAX_STALL_MILLIS = 5000;

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@Test
	void twoInstancesCountExactlyWithoutStallsOnFreshContexts() throws Exception {
		int port = redis.server().port();
		try (ChildJvm other = ChildJvm.start(CounterRoundsMain.class, Integer.toString(port),
				Integer.toString(SUBSCRIBERS))) {
			other.awaitLine("READY", 60, TimeUnit.SECONDS);
			for (int round = 1; round <= ROUNDS; round++) {
				String key = "reactive-counter:" + round + ":" + UUID.randomUUID();
				other.send("ROUND " + key);
				CounterRound here = CounterRound.run(port, key, SUBSCRIBERS);
				CounterRound there = CounterRound.parse(other.awaitLine("DONE", 200, TimeUnit.SECONDS));
				String counted = redis.server().template().opsForValue().get(key);
				System.out.printf("Round %d: counted %s; this JVM %s; the other %s%n", round, counted, here, there);
				for (CounterRound instance : new CounterRound[] { here, there }) {
					assertThat(instance.finished()).as("round %d finished: %s", round, instance).isTrue();
					assertThat(instance.failures()).as("round %d failures: %s", round, instance).isZero();
					assertThat(instance.losses()).as("round %d losses: %s", round, instance).isZero();
					assertThat(instance.longestStallMillis()).as("round %d stall: %s", round, instance)
						.isLessThan(MAX_STALL_MILLIS);
				}
				assertThat(counted).as("round %d count", round).isEqualTo(Integer.toString(2 * SUBSCRIBERS));
			}
		}
	}

}

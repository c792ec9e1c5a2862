package io.distlock.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.distlock.core.DistLock;
import io.distlock.core.LockContext;
import io.distlock.core.LockLease;
import io.distlock.core.LockLostException;
import io.distlock.core.LockRequest;
import io.distlock.test.redis.RedisServerExtension;
import io.distlock.test.registry.LockRegistries;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A registry closed while its threads hold locks of every kind (a client shut down without
 * unlocking) tells each holder its lock is lost, renews nothing any more, and another process
 * gets every key once the lease runs out.
 */
@Timeout(60)
class ClosedRegistryIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockRegistries registries = LockRegistries.on(redis);

	@Test
	void closingARegistryTellsEveryHolderAndFreesItsKeysWithinTheLease() throws Exception {
		RedisLockRegistry closing = this.registries.redis((builder) -> builder.leaseTime(Duration.ofSeconds(1)));
		RedisLockRegistry next = this.registries.redis();
		String exclusive = this.registries.randomKey();
		String fair = this.registries.randomKey();
		String read = this.registries.randomKey();
		String write = this.registries.randomKey();
		String multiA = this.registries.randomKey();
		String multiB = this.registries.randomKey();
		List<DistLock> held = List.of(closing.obtain(exclusive), closing.obtainFair(fair),
				closing.obtainReadWrite(read).readLock(), closing.obtainReadWrite(write).writeLock(),
				closing.obtainMulti(multiA, multiB));
		AtomicInteger lost = new AtomicInteger();
		for (DistLock lock : held) {
			lock.lock();
			lock.lease().onLost((ex) -> lost.incrementAndGet());
		}
		long closedAt = System.nanoTime();
		closing.close();
		assertThat(lost).as("every holder is told at once").hasValue(held.size());
		List<DistLock> successors = List.of(next.obtain(exclusive), next.obtainFair(fair),
				next.obtainReadWrite(read).writeLock(), next.obtainReadWrite(write).writeLock(), next.obtain(multiA),
				next.obtain(multiB));
		for (DistLock successor : successors) {
			assertThat(successor.tryLock(Duration.ofSeconds(10))).as(successor.toString()).isTrue();
			// Nothing renews the closed registry's keys: they expire with the 1 s lease.
			assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closedAt)).as(successor.toString())
				.isLessThan(3_000L);
			successor.unlock();
		}
		// Each holder's unlock tells it the loss once more and clears its thread.
		for (DistLock lock : held) {
			assertThatExceptionOfType(LockLostException.class).as(lock.toString()).isThrownBy(lock::unlock);
		}
		assertThat(LockContext.find()).isEmpty();
	}

	/**
	 * An acquisition whose reply is on its way when the registry closes can be granted after the
	 * close has told every holder it found: the grant then has no watchdog, so its holder must
	 * be told it is lost at once, not handed a lease that no renewal, no deadline check and no
	 * loss signal watch any more. Redis is frozen so that the reply comes just after the close;
	 * a reply that comes later still finds the attempt given up, so the race is run a few times.
	 */
	@Test
	void aGrantThatArrivesAfterTheRegistryClosedIsToldLost() throws Exception {
		LettuceConnectionFactory factory = redis.newConnectionFactory(Duration.ofSeconds(10));
		int granted = 0;
		for (int i = 0; i < 20; i++) {
			RedisLockRegistry closing = this.registries.add(RedisLockRegistry.builder(factory)
				.leaseTime(Duration.ofSeconds(1))
				.build());
			// A registry that has granted before: its watchdog ticks.
			closing.acquire(this.registries.randomKey(), Duration.ZERO).release();
			CompletableFuture<LockLease> acquisition;
			redis.server().pause();
			try {
				// Sent on this thread before acquireAsync returns; answered once Redis resumes.
				acquisition = closing.acquireAsync(LockRequest.of(this.registries.randomKey()).waitTime(Duration.ofSeconds(10)))
					.toCompletableFuture();
				closing.close();
			}
			finally {
				redis.server().resume();
			}
			LockLease lease;
			try {
				lease = acquisition.get(10, TimeUnit.SECONDS);
			}
			catch (ExecutionException givenUp) {
				// The registry gave the attempt up before its reply: nothing was granted.
				continue;
			}
			granted++;
			CompletableFuture<LockLostException> told = new CompletableFuture<>();
			lease.onLost(told::complete);
			assertThat(told.getNow(null)).as("told at once, grant %d", granted).isNotNull();
			assertThat(lease.isValid()).isFalse();
			assertThatExceptionOfType(LockLostException.class).isThrownBy(lease::release);
		}
		// Almost every round is granted after the close (the reply beats the given-up attempt):
		// none would mean the race above is no longer run.
		assertThat(granted).as("grants that arrived after the close").isPositive();
	}

	/**
	 * A registry subscribes to release notifications before its first wait, on a thread of its
	 * own. Closed while that subscription is being made, it must not leave it behind: a
	 * subscriber connection that nothing stops would stay for as long as the application's
	 * connection factory. Raced a few times, each registry with a channel of its own.
	 */
	@Test
	void aRegistryClosedWhileItSubscribesLeavesNoSubscriptionBehind() throws Exception {
		for (int i = 0; i < 10; i++) {
			String prefix = "closed-" + i + "-" + UUID.randomUUID() + ":";
			RedisLockRegistry closing = this.registries.redis((builder) -> builder.keyPrefix(prefix));
			RedisLockRegistry owner = this.registries.redis((builder) -> builder.keyPrefix(prefix));
			String key = this.registries.randomKey();
			LockLease held = owner.acquire(key, Duration.ZERO);
			// Finds the key taken, and subscribes before it waits.
			closing.acquireAsync(LockRequest.of(key).waitTime(Duration.ofSeconds(10)));
			TimeUnit.MICROSECONDS.sleep(200L * i);
			closing.close();
			held.release();
			String channel = prefix + "released";
			await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(3))
				.untilAsserted(() -> assertThat(subscribers(channel)).as("subscribers of %s", channel).isZero());
		}
	}

	private static long subscribers(String channel) {
		try (RedisConnection connection = factory().getConnection()) {
			Long count = connection.scriptingCommands()
				.eval("return redis.call('pubsub', 'numsub', ARGV[1])[2]".getBytes(StandardCharsets.UTF_8),
						ReturnType.INTEGER, 0, channel.getBytes(StandardCharsets.UTF_8));
			return count;
		}
	}

	private static org.springframework.data.redis.connection.RedisConnectionFactory factory() {
		return redis.server().connectionFactory();
	}

}

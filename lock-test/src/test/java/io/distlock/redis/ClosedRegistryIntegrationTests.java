package io.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.distlock.core.DistLock;
import io.distlock.core.LockContext;
import io.distlock.core.LockLostException;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A registry closed while its threads hold locks of every kind (a client shut down without
 * unlocking) tells each holder its lock is lost, renews nothing any more, and another process
 * gets every key once the lease runs out.
 */
@Timeout(60)
class ClosedRegistryIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final List<RedisLockRegistry> registries = new ArrayList<>();

	@AfterEach
	void close() {
		this.registries.forEach(RedisLockRegistry::close);
	}

	@Test
	void closingARegistryTellsEveryHolderAndFreesItsKeysWithinTheLease() throws Exception {
		RedisLockRegistry closing = register(RedisLockRegistry.builder(factory()).leaseTime(Duration.ofSeconds(1)));
		RedisLockRegistry next = register(RedisLockRegistry.builder(factory()));
		String exclusive = randomKey();
		String fair = randomKey();
		String read = randomKey();
		String write = randomKey();
		String multiA = randomKey();
		String multiB = randomKey();
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

	private RedisLockRegistry register(RedisLockRegistry.Builder builder) {
		RedisLockRegistry registry = builder.build();
		this.registries.add(registry);
		return registry;
	}

	private static org.springframework.data.redis.connection.RedisConnectionFactory factory() {
		return redis.server().connectionFactory();
	}

	private static String randomKey() {
		return "closed:" + UUID.randomUUID();
	}

}

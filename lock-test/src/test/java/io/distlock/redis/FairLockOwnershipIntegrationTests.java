package io.distlock.redis;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.distlock.core.DistLock;
import io.distlock.core.LockLostException;
import io.distlock.test.redis.RedisServerExtension;
import io.distlock.test.registry.LockRegistries;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A fair lock belongs to its thread as an exclusive lock does: it is re-entered without a round
 * trip, only its thread unlocks it, a waiter of another thread gives up at its wait time, and a
 * waiter of the same process gets it once the holder's fixed lease runs out.
 */
@Timeout(60)
class FairLockOwnershipIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockRegistries registries = LockRegistries.on(redis);

	@Test
	void aFairLockIsReentrantAndOnlyItsThreadUnlocksIt() throws Exception {
		RedisLockRegistry registry = this.registries.redis();
		String key = this.registries.randomKey();
		DistLock lock = registry.obtainFair(key);
		lock.lock();
		long token = lock.lease().fencingToken();
		long scripts = redis.server().scriptCalls();
		assertThat(lock.tryLock()).isTrue();
		registry.obtainFair(key).lock();
		assertThat(redis.server().scriptCalls()).as("re-entry stays local").isEqualTo(scripts);
		assertThat(lock.lease().fencingToken()).isEqualTo(token);
		Future<?> wrongThread = this.registries.executor().submit(() -> registry.obtainFair(key).unlock());
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> wrongThread.get(5, TimeUnit.SECONDS))
			.withCauseInstanceOf(IllegalMonitorStateException.class);
		assertThat(this.registries.executor().submit(() -> registry.obtainFair(key).tryLock()).get(5, TimeUnit.SECONDS))
			.as("another thread of the same process").isFalse();
		lock.unlock();
		lock.unlock();
		assertThat(lock.isHeldByCurrentThread()).isTrue();
		lock.unlock();
		assertThat(lock.isHeldByCurrentThread()).isFalse();
		assertThat(redis.server().template().hasKey("distlock:{" + key + "}")).isFalse();
		assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock::unlock);
		assertThat(registry.localKeyCount()).isZero();
	}

	/**
	 * A key's fair lock and its exclusive lock are one lock in Redis: a thread holding either
	 * never waits out its wait time for itself when it asks for the other (re-entering it or
	 * being refused at once are both honest answers), and nobody else gets the key meanwhile.
	 */
	@Test
	void aThreadHoldingOneKindOfTheLockDoesNotWaitForItselfOnTheOther() throws Exception {
		RedisLockRegistry registry = this.registries.redis();
		RedisLockRegistry other = this.registries.redis();
		String key = this.registries.randomKey();
		assertDoesNotWaitForItself(registry, other, registry.obtain(key), registry.obtainFair(key));
		assertDoesNotWaitForItself(registry, other, registry.obtainFair(key), registry.obtain(key));
		assertThat(registry.localKeyCount()).isZero();
	}

	private void assertDoesNotWaitForItself(RedisLockRegistry registry, RedisLockRegistry other, DistLock held,
			DistLock asked) throws Exception {
		held.lock();
		try {
			long start = System.nanoTime();
			try {
				if (asked.tryLock(Duration.ofSeconds(3))) {
					asked.unlock();
				}
			}
			catch (IllegalMonitorStateException refused) {
				// Refused at once: as honest as a re-entry.
			}
			assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as(asked + " while holding " + held)
				.isLessThan(1_500L);
			assertThat(other.obtain(held.key()).tryLock()).as("another process").isFalse();
		}
		finally {
			held.unlock();
		}
	}

	@Test
	void aFairWaiterGivesUpAtItsWaitTimeWithAWideMargin() throws Exception {
		RedisLockRegistry holder = this.registries.redis();
		RedisLockRegistry waiter = this.registries.redis();
		String key = this.registries.randomKey();
		DistLock held = holder.obtainFair(key);
		held.lock();
		long start = System.nanoTime();
		assertThat(waiter.obtainFair(key).tryLock(Duration.ofSeconds(1))).isFalse();
		assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isBetween(1_000L, 1_500L);
		held.unlock();
		assertThat(waiter.localKeyCount()).isZero();
	}

	@Test
	void aWaiterOfTheSameProcessGetsTheFairLockWhenTheHoldersFixedLeaseRunsOut() throws Exception {
		RedisLockRegistry registry = this.registries.redis();
		String key = this.registries.randomKey();
		DistLock holder = registry.obtainFair(key);
		long start = System.nanoTime();
		// Never released: the fixed lease runs out after a second.
		assertThat(holder.tryLock(Duration.ZERO, Duration.ofSeconds(1))).isTrue();
		Future<Long> grantedAt = this.registries.executor().submit(() -> {
			DistLock lock = registry.obtainFair(key);
			assertThat(lock.tryLock(Duration.ofSeconds(20))).isTrue();
			long at = System.nanoTime();
			lock.unlock();
			return at;
		});
		long waitedMillis = TimeUnit.NANOSECONDS.toMillis(grantedAt.get(20, TimeUnit.SECONDS) - start);
		assertThat(waitedMillis).isBetween(900L, 5_000L);
		assertThatExceptionOfType(LockLostException.class).isThrownBy(holder::unlock);
		assertThat(registry.localKeyCount()).isZero();
	}

}

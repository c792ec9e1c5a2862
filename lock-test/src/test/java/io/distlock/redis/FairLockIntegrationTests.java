package io.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.distlock.core.DistLock;
import io.distlock.core.LockLostException;
import io.distlock.test.process.ChildJvm;
import io.distlock.test.process.FairWaiterMain;
import io.distlock.test.redis.RedisServerExtension;
import io.distlock.test.registry.LockRegistries;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Fair locks on a real Redis. A fair lock belongs to its thread as an exclusive lock does: it is
 * re-entered without a round trip, only its thread unlocks it, a waiter of another thread gives up
 * at its wait time, and a waiter of the same process gets it once the holder's fixed lease runs
 * out. Its Redis queue holds when holders and waiters do not leave cleanly: holders whose fixed
 * leases run out without a release still pass the lock on in arrival order, and a waiter whose
 * process dies keeps its place only until the deadline it last refreshed, not for its whole wait
 * time (that test kills the waiter's JVM: tagged {@code fault}, it runs in
 * {@code ./mvnw -Pfaults verify}).
 */
@Timeout(60)
class FairLockIntegrationTests {

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

	@Test
	@Timeout(90)
	void fixedLeasesThatRunOutPassTheLockOnInArrivalOrder() throws Exception {
		String key = this.registries.randomKey();
		int waiters = 5;
		long leaseMillis = 1_000;
		List<Integer> order = new CopyOnWriteArrayList<>();
		List<Long> grantedAt = new CopyOnWriteArrayList<>();
		List<Future<Boolean>> outcomes = new ArrayList<>();
		List<DistLock> locks = new ArrayList<>();
		for (int i = 0; i < waiters; i++) {
			// Each waiter is its own process, so the order comes from the queue in Redis.
			RedisLockRegistry registry = this.registries.redis();
			// Warm up (connection, scripts, subscription), so that no first call is late to the queue.
			DistLock warmUp = registry.obtainFair(key + ":warm-up");
			warmUp.lock();
			warmUp.unlock();
			locks.add(registry.obtainFair(key));
		}
		for (int i = 0; i < waiters; i++) {
			int arrival = i;
			DistLock lock = locks.get(i);
			outcomes.add(this.registries.executor().submit(() -> {
				if (!lock.tryLock(Duration.ofSeconds(30), Duration.ofMillis(leaseMillis))) {
					return false;
				}
				grantedAt.add(System.nanoTime());
				order.add(arrival);
				// Never released: the fixed lease runs out and the next in line must get it.
				return true;
			}));
			// Let each waiter take its place before the next arrives; all arrive within a lease.
			Thread.sleep(150);
		}
		for (Future<Boolean> outcome : outcomes) {
			assertThat(outcome.get(30, TimeUnit.SECONDS)).isTrue();
		}
		assertThat(order).containsExactly(0, 1, 2, 3, 4);
		for (int i = 1; i < waiters; i++) {
			// Each grant came once the previous lease had run out (a wide margin below the lease).
			assertThat(TimeUnit.NANOSECONDS.toMillis(grantedAt.get(i) - grantedAt.get(i - 1)))
				.as("grant %d after grant %d", i, i - 1)
				.isGreaterThanOrEqualTo(leaseMillis - 200);
		}
	}

	@Test
	@Tag("fault")
	@Timeout(90)
	void aWaiterWhoseProcessDiedKeepsItsPlaceOnlyUntilTheDeadlineItLastRefreshed() throws Exception {
		String key = this.registries.randomKey();
		String queueKey = "distlock:{" + key + "}:queue";
		RedisLockRegistry holder = this.registries.redis();
		RedisLockRegistry next = this.registries.redis();
		DistLock held = holder.obtainFair(key);
		held.lock();
		try (ChildJvm doomed = ChildJvm.start(FairWaiterMain.class, Integer.toString(redis.server().port()), key,
				key + ":granted")) {
			doomed.awaitLine("READY", 30, TimeUnit.SECONDS);
			// The child's waiter asks for the lock with a 30 s wait and takes a place in the queue.
			doomed.send("doomed");
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
			while (redis.server().template().opsForList().size(queueKey) < 1 && System.nanoTime() < deadline) {
				Thread.sleep(20);
			}
			assertThat(redis.server().template().opsForList().size(queueKey)).isEqualTo(1);
			doomed.kill();
		}
		long releasedAt = System.nanoTime();
		held.unlock();
		DistLock lock = next.obtainFair(key);
		assertThat(lock.tryLock()).as("the dead waiter's place is still ahead of a newcomer").isFalse();
		assertThat(lock.tryLock(Duration.ofSeconds(20))).isTrue();
		long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - releasedAt);
		lock.unlock();
		// A waiter refreshes its place at every attempt for twice the retry interval (1 s), never
		// for its whole wait time (30 s): the dead waiter's place was gone within that.
		assertThat(waitedMillis).isLessThan(5_000L);
		assertThat(redis.server().template().opsForList().size(key + ":granted")).as("the dead waiter never got it")
			.isZero();
	}

}

package io.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.distlock.core.DistLock;
import io.distlock.test.process.ChildJvm;
import io.distlock.test.process.FairWaiterMain;
import io.distlock.test.redis.RedisServerExtension;
import io.distlock.test.registry.LockRegistries;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Redis queue of a fair lock when holders and waiters do not leave cleanly: holders whose
 * fixed leases run out without a release still pass the lock on in arrival order, and a waiter
 * whose process dies keeps its place only until the deadline it last refreshed, not for its
 * whole wait time.
 */
@Timeout(90)
class FairLockQueueIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockRegistries registries = LockRegistries.on(redis);

	@Test
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

package io.distlock.redis;


import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.distlock.core.DistLock;
import io.distlock.test.process.ChildJvm;
import io.distlock.test.process.CounterWorkers;
import io.distlock.test.process.FairWaiterMain;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fair and read/write locks across two JVMs: the lost-update counter stays exact under the fair
 * lock and the write lock; readers really overlap; and the fair lock grants in arrival order.
 */
@Timeout(120)
class LockModesMultiProcessIntegrationTests {

	private static final int INCREMENTS = 30;

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@Test
	void fairLockKeepsTheCounterExactAcrossTwoJvms() throws Exception {
		assertThat(runCounter("fair")).isEqualTo(2 * 4 * INCREMENTS);
	}

	@Test
	void writeLockKeepsTheCounterExactAcrossTwoJvms() throws Exception {
		assertThat(runCounter("write")).isEqualTo(2 * 4 * INCREMENTS);
	}

	@Test
	void readersOverlapAcrossTwoJvms() throws Exception {
		String counterKey = "readers:" + UUID.randomUUID();
		runWorkers("read", counterKey);
		int maxInside = Integer.parseInt(redis.server().template().opsForValue().get(counterKey + ":max"));
		// Eight readers in two processes, 5 ms each: without sharing there would never be two.
		assertThat(maxInside).isGreaterThanOrEqualTo(2);
		System.out.println("Most readers inside the read lock at once: " + maxInside + " of 8");
	}

	@Test
	void fairLockGrantsInArrivalOrderAcrossTwoJvms() throws Exception {
		String key = "fair-order:" + UUID.randomUUID();
		String orderKey = key + ":granted";
		String port = Integer.toString(redis.server().port());
		RedisLockRegistry holder = new RedisLockRegistry(redis.server().connectionFactory());
		try (ChildJvm a = ChildJvm.start(FairWaiterMain.class, port, key, orderKey);
				ChildJvm b = ChildJvm.start(FairWaiterMain.class, port, key, orderKey)) {
			a.awaitLine("READY", 30, TimeUnit.SECONDS);
			b.awaitLine("READY", 30, TimeUnit.SECONDS);
			DistLock lock = holder.obtainFair(key);
			lock.lock();
			List<String> arrivals = List.of("a1", "b1", "a2", "b2", "a3", "b3");
			for (String label : arrivals) {
				(label.startsWith("a") ? a : b).send(label);
				// Let each waiter take its place before the next one arrives.
				Thread.sleep(300);
			}
			lock.unlock();
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
			while (redis.server().template().opsForList().size(orderKey) < arrivals.size()
					&& System.nanoTime() < deadline) {
				Thread.sleep(50);
			}
			List<String> granted = redis.server().template().opsForList().range(orderKey, 0, -1);
			System.out.println("Fair lock: arrivals " + arrivals + ", grants " + granted);
			assertThat(granted).containsExactlyElementsOf(arrivals);
		}
		finally {
			holder.close();
		}
	}

	private int runCounter(String mode) throws Exception {
		String counterKey = "counter:" + UUID.randomUUID();
		redis.server().template().opsForValue().set(counterKey, "0");
		runWorkers(mode, counterKey);
		return Integer.parseInt(redis.server().template().opsForValue().get(counterKey));
	}

	private void runWorkers(String mode, String counterKey) throws Exception {
		String lockKey = "modes:" + UUID.randomUUID();
		CounterWorkers.runTwo(Integer.toString(redis.server().port()), lockKey, counterKey, INCREMENTS, mode,
				Duration.ofSeconds(90));
	}


}

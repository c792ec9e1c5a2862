package io.distlock.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.distlock.annotation.DistributedLock;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An annotated method locks per evaluated key, not per method: calls for different keys run at
 * the same time, calls for one key one at a time, and nothing is left in Redis afterwards.
 */
@Timeout(60)
class DistinctKeysConcurrencyIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private static final int CALLERS = 3;

	private ApplicationContextRunner runner() {
		return DistlockRunners.withRedis(redis.server())
			.withPropertyValues("distlock.wait-time=20s")
			.withBean("groups", Groups.class);
	}

	@Test
	void callsForDifferentKeysRunTogether() {
		runner().run((context) -> {
			Groups groups = context.getBean(Groups.class);
			// Each call waits inside the method until all three are inside: only possible if no
			// call waits for another's lock (a call that did would break the barrier at its timeout).
			AtomicInteger insideWhenAllArrived = new AtomicInteger();
			CyclicBarrier allInside = new CyclicBarrier(CALLERS, () -> insideWhenAllArrived.set(groups.inside()));
			callConcurrently((caller) -> groups.release(caller, allInside));
			assertThat(insideWhenAllArrived).hasValue(CALLERS);
			assertThat(lockKeys()).isEmpty();
		});
	}

	@Test
	void callsForOneKeyRunOneAtATime() {
		runner().run((context) -> {
			Groups groups = context.getBean(Groups.class);
			List<Integer> insideAtOnce = callConcurrently((caller) -> groups.release(0, null));
			assertThat(insideAtOnce).hasSize(CALLERS).allSatisfy((inside) -> assertThat(inside).isEqualTo(1));
			assertThat(lockKeys()).isEmpty();
		});
	}

	private static Set<String> lockKeys() {
		// The lock keys only: each key's fence record outlives its locks by design.
		return redis.server().template().keys("distlock:{group:*}");
	}

	private static List<Integer> callConcurrently(Call call) throws Exception {
		ExecutorService executor = Executors.newFixedThreadPool(CALLERS);
		try {
			List<Future<Integer>> calls = new ArrayList<>();
			for (int i = 0; i < CALLERS; i++) {
				int caller = i;
				calls.add(executor.submit(() -> call.run(caller)));
			}
			List<Integer> results = new ArrayList<>();
			for (Future<Integer> result : calls) {
				results.add(result.get(30, TimeUnit.SECONDS));
			}
			return results;
		}
		finally {
			executor.shutdownNow();
		}
	}

	@FunctionalInterface
	interface Call {

		int run(int caller) throws Exception;

	}

	public static class Groups {

		private final AtomicInteger inside = new AtomicInteger();

		public int inside() {
			return this.inside.get();
		}

		/**
		 * Release a group's messages; with a barrier, wait until every caller is inside.
		 * @return how many callers were inside at the widest point of this call that it saw
		 */
		@DistributedLock(key = "'group:' + #group")
		public int release(int group, CyclicBarrier allInside) throws Exception {
			int widest = this.inside.incrementAndGet();
			try {
				if (allInside != null) {
					allInside.await(10, TimeUnit.SECONDS);
					return widest;
				}
				Thread.sleep(50);
				return Math.max(widest, this.inside.get());
			}
			finally {
				this.inside.decrementAndGet();
			}
		}

	}

}

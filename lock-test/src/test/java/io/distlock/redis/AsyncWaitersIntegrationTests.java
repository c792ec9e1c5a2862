package io.distlock.redis;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.distlock.core.LockLease;
import io.distlock.core.LockRequest;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Ten thousand asynchronous waiters on one hot key: each is a future on the local gate, not a
 * parked thread. All are granted in turn with no two inside at once, distlock starts no more
 * than its few threads of its own (timer, watchdog, renewal, subscription), and a waiter costs
 * at most a kilobyte of heap.
 */
@Timeout(120)
class AsyncWaitersIntegrationTests {

	private static final int WAITERS = 10_000;

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@Test
	void tenThousandAsyncWaitersOnOneKeyAreGrantedInTurnWithoutAThreadEach() throws Exception {
		long threadsBefore = distlockThreads();
		try (RedisLockRegistry registry = RedisLockRegistry.builder(redis.server().connectionFactory()).build()) {
			String key = "hot:" + UUID.randomUUID();
			// Warm up the scripts and the connection before measuring.
			registry.acquire(key, Duration.ZERO).release();
			MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
			LockLease holder = registry.acquire(key, Duration.ZERO);
			long heapBefore = usedHeapAfterGc(memory);
			AtomicInteger inside = new AtomicInteger();
			AtomicInteger mostInside = new AtomicInteger();
			int[] counter = new int[1];
			List<CompletableFuture<Integer>> results = new ArrayList<>(WAITERS);
			for (int i = 0; i < WAITERS; i++) {
				results.add(registry
					.executeLockedAsync(LockRequest.of(key).waitTime(Duration.ofSeconds(90)), (lease) -> {
						mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
						int read = counter[0];
						counter[0] = read + 1;
						inside.decrementAndGet();
						return CompletableFuture.completedFuture(read);
					})
					.toCompletableFuture());
			}
			long heapWaiting = usedHeapAfterGc(memory);
			long bytesPerWaiter = (heapWaiting - heapBefore) / WAITERS;
			long threadsWaiting = distlockThreads();
			assertThat(results).allSatisfy((result) -> assertThat(result).isNotDone());
			holder.release();
			CompletableFuture.allOf(results.toArray(CompletableFuture[]::new)).get(90, TimeUnit.SECONDS);
			assertThat(mostInside).hasValue(1);
			assertThat(counter[0]).as("a non-atomic counter under the lock").isEqualTo(WAITERS);
			assertThat(results.stream().map(CompletableFuture::join).sorted().toList())
				.as("every waiter saw a different count")
				.isEqualTo(IntStream.range(0, WAITERS).boxed().toList());
			assertThat(threadsWaiting - threadsBefore)
				.as("threads distlock started for a registry with %d waiters", WAITERS)
				.isLessThanOrEqualTo(4);
			assertThat(bytesPerWaiter).as("heap per waiting acquisition, in bytes").isLessThanOrEqualTo(1024);
			System.out.println(WAITERS + " async waiters: " + bytesPerWaiter + " bytes of heap each; distlock threads "
					+ threadsBefore + " before the registry, " + threadsWaiting + " while they waited");
			assertThat(registry.localKeyCount()).isZero();
		}
	}

	private static long distlockThreads() {
		return Arrays.stream(ManagementFactory.getThreadMXBean().dumpAllThreads(false, false))
			.filter((thread) -> thread.getThreadName().startsWith("distlock-"))
			.count();
	}

	private static long usedHeapAfterGc(MemoryMXBean memory) throws InterruptedException {
		for (int i = 0; i < 3; i++) {
			System.gc();
			Thread.sleep(50);
		}
		return memory.getHeapMemoryUsage().getUsed();
	}

}

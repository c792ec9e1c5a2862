package io.distlock.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.core.StringRedisTemplate;

import io.distlock.annotation.DistributedLock;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two application contexts on one Redis, like two instances of a service: an annotated
 * read-sleep-write on a shared counter never loses an update; the same code without the
 * annotation does (the negative control that shows the counter detects overlap).
 */
@Timeout(120)
class TwoInstancesIntegrationTests {

	private static final int THREADS = 4;

	private static final int INCREMENTS = 25;

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@Test
	void annotatedIncrementsAcrossTwoInstancesAreExact() throws Exception {
		assertThat(runOnTwoInstances(SharedCounter::incrementLocked)).isEqualTo(2 * THREADS * INCREMENTS);
	}

	@Test
	void negativeControlWithoutTheAnnotationLosesUpdates() throws Exception {
		assertThat(runOnTwoInstances(SharedCounter::incrementUnlocked)).isLessThan(2 * THREADS * INCREMENTS);
	}

	private int runOnTwoInstances(Consumer<SharedCounter> increment) throws Exception {
		StringRedisTemplate template = redis.server().template();
		template.opsForValue().set(SharedCounter.KEY, "0");
		List<Exception> failures = new ArrayList<>();
		DistlockRunners.withRedis(redis.server()).withBean(SharedCounter.class).run((first) -> {
			DistlockRunners.withRedis(redis.server()).withBean(SharedCounter.class).run((second) -> {
				ExecutorService executor = Executors.newFixedThreadPool(2 * THREADS);
				try {
					List<Future<?>> workers = new ArrayList<>();
					for (int t = 0; t < 2 * THREADS; t++) {
						SharedCounter counter = ((t % 2 == 0) ? first : second).getBean(SharedCounter.class);
						workers.add(executor.submit(() -> {
							for (int i = 0; i < INCREMENTS; i++) {
								increment.accept(counter);
							}
						}));
					}
					for (Future<?> worker : workers) {
						worker.get(90, TimeUnit.SECONDS);
					}
				}
				catch (Exception ex) {
					failures.add(ex);
				}
				finally {
					executor.shutdownNow();
				}
			});
		});
		assertThat(failures).isEmpty();
		return Integer.parseInt(template.opsForValue().get(SharedCounter.KEY));
	}

	public static class SharedCounter {

		static final String KEY = "shared-counter";

		@DistributedLock(key = "'counter'", waitTime = "60s")
		public void incrementLocked() {
			incrementUnlocked();
		}

		public void incrementUnlocked() {
			StringRedisTemplate template = redis.server().template();
			int read = Integer.parseInt(template.opsForValue().get(KEY));
			try {
				Thread.sleep(1);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			template.opsForValue().set(KEY, Integer.toString(read + 1));
		}

	}

}

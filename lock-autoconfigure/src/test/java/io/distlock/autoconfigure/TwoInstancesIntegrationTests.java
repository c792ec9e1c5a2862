package io.distlock.autoconfigure;

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
		TwoInstances.callConcurrently(DistlockRunners.withRedis(redis.server()).withBean(SharedCounter.class),
				SharedCounter.class, THREADS, INCREMENTS, increment);
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

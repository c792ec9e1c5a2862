package io.distlock.autoconfigure;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.core.StringRedisTemplate;

import io.distlock.annotation.DistributedLock;
import io.distlock.annotation.OnFailure;
import io.distlock.core.LockContext;
import io.distlock.core.LockLease;
import io.distlock.core.LockListener;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.test.redis.RedisServerExtension;
import io.distlock.test.registry.LockRegistries;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What an annotated method that throws leaves behind: its own exception, unchanged (a checked
 * one is not wrapped), and its lock released, or kept for a minimum hold as after a success.
 * And a method of the same bean without the annotation takes no lock at all.
 */
@Timeout(60)
class LockedMethodExceptionIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockRegistries registries = LockRegistries.on(redis);

	private ApplicationContextRunner runner() {
		return DistlockRunners.withRedis(redis.server())
			.withBean("jobs", Jobs.class)
			.withBean("acquisitions", Acquisitions.class);
	}

	@Test
	void anUncheckedExceptionIsRethrownAsItIsAndTheLockReleased() {
		runner().run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			IllegalStateException thrown = Jobs.UNCHECKED;
			assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> jobs.failUnchecked(7))
				.isSameAs(thrown);
			assertThat(jobs.heldWhileRunning()).containsExactly("job:7");
			assertThat(redis().hasKey("distlock:{job:7}")).isFalse();
			assertThat(LockContext.find()).isEmpty();
			assertOtherInstanceAcquires("job:7");
		});
	}

	@Test
	void aCheckedExceptionIsRethrownUnwrappedAndTheLockReleased() {
		runner().run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			assertThatExceptionOfType(IOException.class).isThrownBy(() -> jobs.failChecked(8))
				.withMessage("disk full")
				.withNoCause();
			assertThat(jobs.heldWhileRunning()).containsExactly("job:8");
			assertThat(redis().hasKey("distlock:{job:8}")).isFalse();
			assertOtherInstanceAcquires("job:8");
		});
	}

	@Test
	void aFailedMethodWithAMinimumHoldKeepsItsLockForThatHoldLikeASuccessfulOne() {
		runner().run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			assertThatExceptionOfType(IllegalStateException.class).isThrownBy(jobs::failingNightly);
			long ttl = redis().getExpire("distlock:{Jobs.failingNightly}", TimeUnit.MILLISECONDS);
			assertThat(ttl).as("the key is kept until the minimum hold has passed").isBetween(1L, 2_000L);
			assertThat(jobs.failingNightly(true)).as("a second run within the hold is skipped").isNull();
		});
	}

	@Test
	void aMethodWithoutTheAnnotationOnALockedBeanTakesNoLock() {
		runner().run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			Acquisitions acquisitions = context.getBean(Acquisitions.class);
			assertThat(jobs.plain()).as("no lease bound while the plain method runs").isTrue();
			assertThat(acquisitions.keys).isEmpty();
			jobs.failChecked(false);
			assertThat(acquisitions.keys).as("the listener sees the annotated method's lock").containsExactly("job:0");
		});
	}

	private void assertOtherInstanceAcquires(String key) {
		RedisLockRegistry other = this.registries.redis();
		assertThat(other.tryAcquire(key, Duration.ZERO)).hasValueSatisfying(LockLease::release);
	}

	private static StringRedisTemplate redis() {
		return redis.server().template();
	}

	public static class Acquisitions implements LockListener {

		final List<String> keys = new CopyOnWriteArrayList<>();

		@Override
		public void onAcquiring(String name, String key) {
			this.keys.add(key);
		}

	}

	public static class Jobs {

		static final IllegalStateException UNCHECKED = new IllegalStateException("boom");

		final List<String> heldWhileRunning = new CopyOnWriteArrayList<>();

		@DistributedLock(key = "'job:' + #id")
		public void failUnchecked(long id) {
			this.heldWhileRunning.add(LockContext.current().key());
			throw UNCHECKED;
		}

		@DistributedLock(key = "'job:' + #id")
		public void failChecked(long id) throws IOException {
			this.heldWhileRunning.add(LockContext.current().key());
			throw new IOException("disk full");
		}

		@DistributedLock(key = "'job:0'")
		public void failChecked(boolean fail) throws IOException {
			if (fail) {
				throw new IOException("disk full");
			}
		}

		@DistributedLock(holdAtLeast = "2s", waitTime = "0s", onFailure = OnFailure.SKIP)
		public Void failingNightly() {
			throw new IllegalStateException("nightly failed");
		}

		@DistributedLock(name = "Jobs.failingNightly", key = "'Jobs.failingNightly'", waitTime = "0s",
				onFailure = OnFailure.SKIP)
		public Boolean failingNightly(boolean again) {
			return true;
		}

		public List<String> heldWhileRunning() {
			return this.heldWhileRunning;
		}

		public boolean plain() {
			return LockContext.find().isEmpty();
		}

	}

}

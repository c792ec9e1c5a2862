package io.distlock.autoconfigure;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.distlock.annotation.DistributedLock;
import io.distlock.core.LockContext;
import io.distlock.core.LockLease;
import io.distlock.core.LockLostException;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.test.redis.RedisServerExtension;
import io.distlock.test.registry.LockRegistries;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * How long an annotated method keeps its lock: without {@code leaseTime} the watchdog renews it
 * for as long as the method runs, however much longer than the lease that is; with a
 * {@code leaseTime} the lock runs out after it, another instance can take it, and the method's
 * caller is told with {@link LockLostException}.
 */
@Timeout(60)
class AnnotatedLeaseIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockRegistries registries = LockRegistries.on(redis);

	private ApplicationContextRunner runner() {
		return DistlockRunners.withRedis(redis.server())
			.withPropertyValues("distlock.lease-time=600ms")
			.withBean("imports", Imports.class);
	}

	@Test
	void aMethodWithoutALeaseTimeKeepsItsLockForFarLongerThanTheLease() {
		runner().run((context) -> {
			Imports imports = context.getBean(Imports.class);
			int refusals = imports.renewed(otherInstance(), Duration.ofSeconds(3));
			assertThat(refusals).as("another instance refused throughout five leases").isGreaterThan(20);
			assertThat(redis.server().template().hasKey("distlock:{import:renewed}")).isFalse();
		});
	}

	@Test
	void aMethodWithALeaseTimeLosesItsLockWhenItRunsLongerAndIsToldSo() {
		runner().run((context) -> {
			Imports imports = context.getBean(Imports.class);
			RedisLockRegistry other = otherInstance();
			assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> imports.fixed(other))
				.withMessageContaining("import:fixed");
			assertThat(imports.takenByAnother()).as("another instance took the key while the method still ran")
				.isTrue();
		});
	}

	private RedisLockRegistry otherInstance() {
		return this.registries.redis();
	}

	public static class Imports {

		private volatile boolean takenByAnother;

		public boolean takenByAnother() {
			return this.takenByAnother;
		}

		/**
		 * Run for {@code duration}, asking another instance for the key every 50 ms.
		 * @return how many times the other instance was refused
		 */
		@DistributedLock(key = "'import:renewed'")
		public int renewed(RedisLockRegistry other, Duration duration) throws InterruptedException {
			long until = System.nanoTime() + duration.toNanos();
			int refusals = 0;
			while (System.nanoTime() < until) {
				assertThat(other.tryAcquire("import:renewed", Duration.ZERO)).isEmpty();
				assertThat(LockContext.current().isValid()).isTrue();
				refusals++;
				Thread.sleep(50);
			}
			return refusals;
		}

		/**
		 * Run until the 300 ms lease has run out and another instance has taken the key.
		 */
		@DistributedLock(key = "'import:fixed'", leaseTime = "300ms")
		public void fixed(RedisLockRegistry other) throws InterruptedException {
			CountDownLatch lost = new CountDownLatch(1);
			LockContext.current().onLost((ex) -> lost.countDown());
			assertThat(lost.await(10, TimeUnit.SECONDS)).as("the fixed lease runs out while the method runs").isTrue();
			try (LockLease taken = other.acquire("import:fixed", Duration.ofSeconds(5))) {
				this.takenByAnother = true;
			}
		}

	}

}

package io.distlock.test.memory;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import io.distlock.core.LockLease;
import io.distlock.core.LockListener;
import io.distlock.core.LockRequest;
import io.distlock.core.WaitStrategy;
import io.distlock.engine.AbstractLockRegistry;
import io.distlock.store.LockMode;
import io.distlock.store.LockStore;
import io.distlock.engine.RegistrySettings;
import io.distlock.store.ForwardingLockStore;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A grant whose reply comes after its lease has run out is not an acquisition: the engine gives
 * it back and carries on. The fault suite's T16 shows the same against a slow proxy, where the
 * caller's own wait time usually ends the attempt first; here the store answers late but always
 * answers, so the validity check is what decides.
 */
class LateGrantTests {

	@Test
	void aGrantRepliedAfterItsLeaseIsGivenBackAndNotReported() {
		InMemoryLockStore memory = new InMemoryLockStore();
		AtomicInteger givenBack = new AtomicInteger();
		LockStore slow = new ForwardingLockStore(memory) {

			@Override
			public CompletableFuture<Acquisition> tryAcquire(LockMode mode, String key, String owner,
					Duration leaseTime, Duration waitTime) {
				CompletableFuture<Acquisition> acquisition = super.tryAcquire(mode, key, owner, leaseTime, waitTime);
				sleep(leaseTime.plusMillis(50));
				return acquisition;
			}

			@Override
			public CompletableFuture<Boolean> release(LockMode mode, String key, String owner) {
				givenBack.incrementAndGet();
				return super.release(mode, key, owner);
			}

		};
		AbstractLockRegistry registry = new AbstractLockRegistry(slow, new RegistrySettings(Duration.ofSeconds(30),
				Duration.ofSeconds(10), WaitStrategy.POLLING, Duration.ofMillis(50), LockListener.NONE,
				RegistrySettings.newInstanceId())) {
		};
		try {
			String key = "late:" + UUID.randomUUID();
			Optional<LockLease> lease = registry
				.tryAcquire(LockRequest.of(key).leaseTime(Duration.ofMillis(100)).waitTime(Duration.ZERO));
			assertThat(lease).as("a grant whose lease ran out in flight").isEmpty();
			assertThat(givenBack).as("given back, owner-compared").hasValue(1);
			assertThat(registry.localKeyCount()).isZero();
		}
		finally {
			registry.close();
		}
	}

	private static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}

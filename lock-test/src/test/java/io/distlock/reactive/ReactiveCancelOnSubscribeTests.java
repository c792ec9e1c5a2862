package io.distlock.reactive;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Mono;

import io.distlock.core.LockRequest;
import io.distlock.test.memory.InMemoryLockRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A subscriber that cancels in {@code onSubscribe} (a {@code zip} whose sibling failed, a
 * {@code BaseSubscriber} that changes its mind) against a registry that grants on the
 * subscribing thread (the in-memory one, on a free key): the grant exists before anybody could
 * hear of it, and must still be given back, not held and renewed for ever.
 */
class ReactiveCancelOnSubscribeTests {

	@Test
	void aHoldCancelledWhileSubscribingGivesItsGrantBack() {
		try (InMemoryLockRegistry registry = new InMemoryLockRegistry()) {
			for (int i = 0; i < 20; i++) {
				ReactiveLocks.withLock(registry, LockRequest.of("cancel-on-subscribe:" + i), (lease) -> Mono.just(1))
					.subscribe(new BaseSubscriber<Integer>() {

						@Override
						protected void hookOnSubscribe(Subscription subscription) {
							cancel();
						}

					});
			}
			await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(registry.heldLocks()).isEmpty());
			for (int i = 0; i < 20; i++) {
				assertThat(registry.obtain("cancel-on-subscribe:" + i).tryLock()).as("key %d free again", i).isTrue();
			}
		}
	}

}

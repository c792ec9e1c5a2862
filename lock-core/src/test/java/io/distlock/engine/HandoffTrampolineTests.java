package io.distlock.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests for {@link HandoffTrampoline}.
 */
class HandoffTrampolineTests {

	@Test
	void nothingIsDeferredOutsideARelease() {
		assertThat(HandoffTrampoline.defer(() -> {
		})).isFalse();
	}

	@Test
	void deferredContinuationsRunInOrderOnceTheReleaseHasReturned() {
		List<String> order = new ArrayList<>();
		try (HandoffTrampoline.Scope scope = HandoffTrampoline.open()) {
			assertThat(HandoffTrampoline.defer(() -> order.add("first"))).isTrue();
			assertThat(HandoffTrampoline.defer(() -> order.add("second"))).isTrue();
			order.add("release");
		}
		assertThat(order).containsExactly("release", "first", "second");
		assertThat(HandoffTrampoline.defer(() -> {
		})).as("deferred after the loop ended").isFalse();
	}

	@Test
	void aContinuationThatReleasesAgainJoinsTheLoopAtTheSameDepth() {
		int handoffs = 100_000;
		AtomicInteger ran = new AtomicInteger();
		AtomicInteger deepest = new AtomicInteger();
		AtomicInteger shallowest = new AtomicInteger(Integer.MAX_VALUE);
		try (HandoffTrampoline.Scope scope = HandoffTrampoline.open()) {
			HandoffTrampoline.defer(new Runnable() {

				@Override
				public void run() {
					int depth = Thread.currentThread().getStackTrace().length;
					deepest.accumulateAndGet(depth, Math::max);
					shallowest.accumulateAndGet(depth, Math::min);
					if (ran.incrementAndGet() < handoffs) {
						try (HandoffTrampoline.Scope nested = HandoffTrampoline.open()) {
							HandoffTrampoline.defer(this);
						}
					}
				}

			});
		}
		assertThat(ran).hasValue(handoffs);
		assertThat(deepest.get()).isEqualTo(shallowest.get());
	}

	@Test
	void aContinuationThatThrowsDoesNotKeepTheOthersFromRunning() {
		List<String> order = new ArrayList<>();
		assertThatIllegalStateException().isThrownBy(() -> {
			try (HandoffTrampoline.Scope scope = HandoffTrampoline.open()) {
				HandoffTrampoline.defer(() -> {
					throw new IllegalStateException("first");
				});
				HandoffTrampoline.defer(() -> order.add("second"));
			}
		}).withMessage("first");
		assertThat(order).containsExactly("second");
		assertThat(HandoffTrampoline.defer(() -> {
		})).as("deferred after the loop ended").isFalse();
	}

}

package io.distlock.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.distlock.core.LockLease;
import io.distlock.core.LockRegistry;
import io.distlock.core.LockRequest;
import io.distlock.metrics.ObservationLockListener;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Acquisitions and holds become observations (spans in a trace) when the application has an
 * {@link ObservationRegistry}.
 */
class LockObservationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@Test
	void acquisitionAndHoldAreObservedWithTheirOutcome() {
		List<String> stopped = new CopyOnWriteArrayList<>();
		ObservationRegistry observations = ObservationRegistry.create();
		observations.observationConfig().observationHandler(new ObservationHandler<>() {

			@Override
			public boolean supportsContext(Observation.Context context) {
				return true;
			}

			@Override
			public void onStop(Observation.Context context) {
				stopped.add(context.getName() + " " + context.getLowCardinalityKeyValues().stream()
					.map((keyValue) -> keyValue.getKey() + "=" + keyValue.getValue())
					.sorted()
					.toList() + ((context.getError() != null) ? " error" : ""));
			}

		});
		DistlockRunners.withRedis(redis.server())
			.withBean(ObservationRegistry.class, () -> observations)
			.run((context) -> {
				assertThat(context).hasSingleBean(ObservationLockListener.class);
				LockRegistry registry = context.getBean(LockRegistry.class);
				try (LockLease lease = registry.acquire(LockRequest.of("observed:1").name("Reports.daily"))) {
					LockRegistry other = new io.distlock.redis.RedisLockRegistry(redis.server().connectionFactory());
					assertThat(other.tryAcquire(LockRequest.of("observed:1").name("Reports.daily"))).isEmpty();
					((AutoCloseable) other).close();
				}
				assertThat(stopped).containsExactly(
						"distlock.acquisition [lock.name=Reports.daily, outcome=acquired]",
						"distlock.holding [lock.name=Reports.daily, outcome=released]");
				assertThat(registry.tryAcquire("observed:1", Duration.ZERO)).hasValueSatisfying(LockLease::release);
			});
	}

}

package io.distlock.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;

import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.ObservationView;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

import org.springframework.boot.autoconfigure.AutoConfigurations;

import io.distlock.core.LockLease;
import io.distlock.core.LockLostException;
import io.distlock.core.LockRegistry;
import io.distlock.core.LockRequest;
import io.distlock.core.StaleFencingTokenException;
import io.distlock.fencing.RedisFencing;
import io.distlock.metrics.ObservationLockListener;
import io.distlock.reactive.ReactiveLocks;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

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
		ObservationRegistry observations = recording(stopped, (context, tookMillis) -> context.getName() + " "
				+ context.getLowCardinalityKeyValues().stream()
					.map((keyValue) -> keyValue.getKey() + "=" + keyValue.getValue())
					.sorted()
					.toList()
				+ ((context.getError() != null) ? " error" : ""));
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

	/**
	 * A write refused where the data is written, because a newer holder wrote after the lease
	 * ran out, is an event of the stale hold's observation.
	 */
	@Test
	void aFencingRejectionIsAnEventOfTheStaleHoldersObservation() {
		List<String> events = new CopyOnWriteArrayList<>();
		SimpleMeterRegistry meters = new SimpleMeterRegistry();
		ObservationRegistry observations = ObservationRegistry.create();
		observations.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters));
		observations.observationConfig().observationHandler(new ObservationHandler<>() {

			@Override
			public void onEvent(Observation.Event event, Observation.Context context) {
				events.add(context.getName() + " " + event.getName() + " " + context.getLowCardinalityKeyValue("lock.name").getValue());
			}

			@Override
			public boolean supportsContext(Observation.Context context) {
				return true;
			}

		});
		DistlockRunners.withRedis(redis.server())
			.withConfiguration(AutoConfigurations.of(DistlockFencingAutoConfiguration.class))
			.withBean(ObservationRegistry.class, () -> observations)
			.run((context) -> {
				RedisFencing fencing = context.getBean(RedisFencing.class);
				LockLease older = context.getBean(LockRegistry.class)
					.acquire(LockRequest.of("observed:fenced")
						.name("Stock.reserve")
						.leaseTime(Duration.ofMillis(300))
						.waitTime(Duration.ofSeconds(2)));
				fencing.set("observed:fenced:stock", "10", older);
				await().atMost(Duration.ofSeconds(10)).until(() -> !older.isValid());
				assertThat(events).as("an accepted write is no event").isEmpty();
				try (RedisLockRegistry other = new RedisLockRegistry(redis.server().connectionFactory())) {
					LockLease newer = other.acquire("observed:fenced", Duration.ofSeconds(5));
					fencing.set("observed:fenced:stock", "8", newer);
					assertThatExceptionOfType(StaleFencingTokenException.class)
						.isThrownBy(() -> fencing.set("observed:fenced:stock", "9", older));
					newer.release();
				}
				assertThat(events).containsExactly("distlock.holding distlock.fencing.rejected Stock.reserve");
				assertThat(meters.get("distlock.holding.distlock.fencing.rejected")
					.tag("lock.name", "Stock.reserve")
					.counter()
					.count()).as("the event's counter, as docs/operations.md lists it").isEqualTo(1);
				assertThatExceptionOfType(LockLostException.class).isThrownBy(older::release);
			});
	}

	/**
	 * A reactive hold is asked for within the scope of the observation its Reactor
	 * {@code Context} carries, where WebFlux puts the request's: the acquisition and the hold are
	 * its children although the grant arrives on a driver thread.
	 */
	@Test
	void aReactiveHoldIsObservedUnderTheObservationInItsReactorContext() {
		List<String> stopped = new CopyOnWriteArrayList<>();
		ObservationRegistry observations = recording(stopped,
				(context, tookMillis) -> context.getName() + " under " + parentName(context));
		DistlockRunners.withRedis(redis.server())
			.withBean(ObservationRegistry.class, () -> observations)
			.run((context) -> {
				LockRegistry registry = context.getBean(LockRegistry.class);
				Observation request = Observation.start("test.request", observations);
				String value = ReactiveLocks.withLock(registry, LockRequest.of("observed:3"), (lease) -> Mono.just("ran"))
					.contextWrite(Context.of("micrometer.observation", request))
					.block(Duration.ofSeconds(10));
				request.stop();
				assertThat(value).isEqualTo("ran");
				assertThat(stopped).containsExactly("distlock.acquisition under test.request",
						"distlock.holding under test.request", "test.request under nothing");
			});
	}

	/**
	 * An acquisition that no thread waits for is observed from the call to its grant, which
	 * arrives on another thread, and both observations are children of the one in scope where
	 * it was asked for. The holder gives the lock back 300 ms after the call returned, so the
	 * acquisition cannot have lasted less (one monotonic clock; no upper bound is asserted).
	 */
	@Test
	void anAsynchronousAcquisitionIsObservedFromItsStartUnderTheObservationInScope() {
		List<String> stopped = new CopyOnWriteArrayList<>();
		ObservationRegistry observations = recording(stopped, (context, tookMillis) -> context.getName() + " under "
				+ parentName(context) + (context.getName().equals("distlock.acquisition")
						? ((tookMillis >= 300) ? " for 300 ms or more" : " for less than 300 ms") : ""));
		DistlockRunners.withRedis(redis.server())
			.withBean(ObservationRegistry.class, () -> observations)
			.run((context) -> {
				LockRegistry registry = context.getBean(LockRegistry.class);
				try (io.distlock.redis.RedisLockRegistry other = new io.distlock.redis.RedisLockRegistry(
						redis.server().connectionFactory())) {
					LockLease holder = other.acquire("observed:2", Duration.ZERO);
					Observation request = Observation.start("test.request", observations);
					CompletableFuture<LockLease> granted;
					try (Observation.Scope scope = request.openScope()) {
						granted = registry.acquireAsync(LockRequest.of("observed:2").waitTime(Duration.ofSeconds(10)))
							.toCompletableFuture();
					}
					Thread.sleep(300);
					holder.release();
					granted.get(10, TimeUnit.SECONDS).release();
					request.stop();
				}
				assertThat(stopped).containsExactly("distlock.acquisition under test.request for 300 ms or more",
						"distlock.holding under test.request", "test.request under nothing");
			});
	}

	/**
	 * A registry whose observations, once stopped, are described into the list with how long
	 * they took.
	 */
	private static ObservationRegistry recording(List<String> stopped,
			BiFunction<Observation.Context, Long, String> describe) {
		ObservationRegistry observations = ObservationRegistry.create();
		observations.observationConfig().observationHandler(new ObservationHandler<>() {

			@Override
			public boolean supportsContext(Observation.Context context) {
				return true;
			}

			@Override
			public void onStart(Observation.Context context) {
				context.put("started", System.nanoTime());
			}

			@Override
			public void onStop(Observation.Context context) {
				long tookMillis = (System.nanoTime() - context.<Long>get("started")) / 1_000_000;
				stopped.add(describe.apply(context, tookMillis));
			}

		});
		return observations;
	}

	private static String parentName(Observation.Context context) {
		ObservationView parent = context.getParentObservation();
		return (parent != null) ? parent.getContextView().getName() : "nothing";
	}

}

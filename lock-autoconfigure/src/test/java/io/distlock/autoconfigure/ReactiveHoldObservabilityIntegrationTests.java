package io.distlock.autoconfigure;

import java.time.Duration;

import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.distlock.actuate.LocksEndpoint;
import io.distlock.actuate.LocksEndpoint.HeldDescriptor;
import io.distlock.annotation.DistributedLock;
import io.distlock.reactive.ReactiveLockContext;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A reactive {@code @DistributedLock} hold seen from outside while it is held, as a blocking
 * one is: {@code distlock.active} counts it, {@code /actuator/locks} lists it under its name
 * with its fencing token, and {@code distlock.held} records it once it is released.
 */
@Timeout(60)
class ReactiveHoldObservabilityIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private ApplicationContextRunner runner() {
		return DistlockRunners.withRedisAndMetrics(redis.server())
			.withConfiguration(AutoConfigurations.of(EndpointAutoConfiguration.class))
			.withPropertyValues("management.endpoints.web.exposure.include=locks")
			.withBean("exports", Exports.class);
	}

	@Test
	void aReactiveHoldIsActiveAndListedWhileHeldAndTimedOnceReleased() {
		runner().run((context) -> {
			Exports exports = context.getBean(Exports.class);
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			LocksEndpoint endpoint = context.getBean(LocksEndpoint.class);
			Sinks.Empty<Void> finish = Sinks.empty();
			StepVerifier.create(exports.export("daily", finish.asMono()))
				.then(() -> await().atMost(Duration.ofSeconds(5))
					.until(() -> exports.token() != 0 && endpoint.locks(SecurityContext.NONE).held().size() == 1))
				.then(() -> {
					HeldDescriptor held = endpoint.locks(SecurityContext.NONE).held().get(0);
					assertThat(held.name()).isEqualTo("export");
					assertThat(held.fencingToken()).isEqualTo(exports.token());
					LongTaskTimer active = meters.get("distlock.active").tag("lock.name", "export").longTaskTimer();
					assertThat(active.activeTasks()).isEqualTo(1);
					assertThat(meters.find("distlock.held").tag("lock.name", "export").timer()).isNull();
				})
				.then(finish::tryEmitEmpty)
				.verifyComplete();
			assertThat(endpoint.locks(SecurityContext.NONE).held()).isEmpty();
			assertThat(meters.get("distlock.active").tag("lock.name", "export").longTaskTimer().activeTasks())
				.isZero();
			Timer held = meters.get("distlock.held").tag("lock.name", "export").timer();
			assertThat(held.count()).isEqualTo(1);
		});
	}

	public static class Exports {

		private volatile long token;

		public long token() {
			return this.token;
		}

		@DistributedLock(name = "export", key = "'export:' + #name")
		public Mono<Void> export(String name, Mono<Void> finish) {
			return ReactiveLockContext.current()
				.doOnNext((lease) -> this.token = lease.fencingToken())
				.then(finish);
		}

	}

}

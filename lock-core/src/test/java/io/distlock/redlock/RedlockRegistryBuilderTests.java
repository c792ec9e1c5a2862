package io.distlock.redlock;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.distlock.core.InvalidRegistryOptionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The Redlock options are checked once, by the builder, naming the option and its value.
 * Nothing here reaches a node: an invalid option fails before the registry connects (the
 * factories are never started).
 */
class RedlockRegistryBuilderTests {

	private final List<LettuceConnectionFactory> nodes = List.of(new LettuceConnectionFactory("a", 1),
			new LettuceConnectionFactory("b", 1), new LettuceConnectionFactory("c", 1));

	@Test
	void aDriftFactorOutOfRangeIsRefused() {
		assertThatExceptionOfType(InvalidRegistryOptionException.class)
			.isThrownBy(() -> RedlockRegistry.builder(this.nodes).driftFactor(0.5).build())
			.withMessage("driftFactor must be in (0, 0.1] but was '0.5'")
			.satisfies((ex) -> assertThat(ex.getOption()).isEqualTo("driftFactor"));
		assertThatExceptionOfType(InvalidRegistryOptionException.class)
			.isThrownBy(() -> RedlockRegistry.builder(this.nodes).driftFactor(0).build())
			.withMessage("driftFactor must be in (0, 0.1] but was '0.0'");
	}

	@Test
	void aLeaseThatThePerNodeTimeoutDriftAndMinimumValidityUseUpIsRefused() {
		assertThatExceptionOfType(InvalidRegistryOptionException.class)
			.isThrownBy(() -> RedlockRegistry.builder(this.nodes)
				.leaseTime(Duration.ofMillis(100))
				.perNodeTimeout(Duration.ofMillis(95))
				.minValidity(Duration.ofMillis(5))
				.build())
			.withMessage("leaseTime 'PT0.1S' must be longer than perNodeTimeout + drift + minValidity ('PT0.103S'),"
					+ " or no grant could ever be valid")
			.satisfies((ex) -> assertThat(ex.getOption()).isEqualTo("leaseTime"));
	}

	@Test
	void aRestartDelayShorterThanTheLeaseIsRefused() {
		assertThatExceptionOfType(InvalidRegistryOptionException.class)
			.isThrownBy(() -> RedlockRegistry.builder(this.nodes).restartDelay(Duration.ofSeconds(10)).build())
			.withMessage("restartDelay 'PT10S' must be at least the leaseTime 'PT30S': a node that lost a lock could "
					+ "vote again while it is held")
			.satisfies((ex) -> assertThat(ex.getOption()).isEqualTo("restartDelay"));
	}

	@Test
	void aNodeListedTwiceIsRefusedWhetherGivenAsAFactoryOrAsAUri() {
		assertThatExceptionOfType(InvalidRegistryOptionException.class)
			.isThrownBy(() -> RedlockRegistry.builder(List.of(this.nodes.get(0), new LettuceConnectionFactory("a", 1)))
				.build())
			.withMessage("Redlock node 'a:1' is listed twice; the nodes must be independent")
			.satisfies((ex) -> assertThat(ex.getOption()).isEqualTo("nodes"));
		assertThatExceptionOfType(InvalidRegistryOptionException.class)
			.isThrownBy(() -> RedlockRegistry.builderForUris(List.of("redis://a:1", "redis://b:1", "redis://a:1/2"))
				.build())
			.withMessage("Redlock node 'a:1' is listed twice; the nodes must be independent");
	}

	@Test
	void theSharedOptionsAreCheckedByTheSameRulesAsOnOneRedis() {
		assertThatExceptionOfType(InvalidRegistryOptionException.class)
			.isThrownBy(() -> RedlockRegistry.builder(this.nodes)
				.leaseTime(Duration.ofSeconds(1))
				.renewalInterval(Duration.ofMillis(600))
				.build())
			.satisfies((ex) -> assertThat(ex.getOption()).isEqualTo("renewalInterval"));
	}

}

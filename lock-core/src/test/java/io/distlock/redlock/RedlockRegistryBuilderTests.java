package io.distlock.redlock;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static io.distlock.redis.InvalidOptionAssertions.assertRefusedNaming;

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
		assertRefusedNaming("driftFactor", () -> RedlockRegistry.builder(this.nodes).driftFactor(0.5).build())
			.withMessage("driftFactor must be in (0, 0.1] but was '0.5'");
		assertRefusedNaming("driftFactor", () -> RedlockRegistry.builder(this.nodes).driftFactor(0).build())
			.withMessage("driftFactor must be in (0, 0.1] but was '0.0'");
	}

	@Test
	void aLeaseThatThePerNodeTimeoutDriftAndMinimumValidityUseUpIsRefused() {
		assertRefusedNaming("leaseTime", () -> RedlockRegistry.builder(this.nodes)
				.leaseTime(Duration.ofMillis(100))
				.perNodeTimeout(Duration.ofMillis(95))
				.minValidity(Duration.ofMillis(5))
				.build())
			.withMessage("leaseTime 'PT0.1S' must be longer than perNodeTimeout + drift + minValidity ('PT0.103S'),"
					+ " or no grant could ever be valid");
	}

	@Test
	void aRestartDelayShorterThanTheLeaseIsRefused() {
		assertRefusedNaming("restartDelay", () -> RedlockRegistry.builder(this.nodes).restartDelay(Duration.ofSeconds(10)).build())
			.withMessage("restartDelay 'PT10S' must be at least the leaseTime 'PT30S': a node that lost a lock could "
					+ "vote again while it is held");
	}

	@Test
	void aNodeListedTwiceIsRefusedWhetherGivenAsAFactoryOrAsAUri() {
		assertRefusedNaming("nodes", () -> RedlockRegistry.builder(List.of(this.nodes.get(0), new LettuceConnectionFactory("a", 1)))
				.build())
			.withMessage("Redlock node 'a:1' is listed twice; the nodes must be independent");
		assertRefusedNaming("nodes", () -> RedlockRegistry.builderForUris(List.of("redis://a:1", "redis://b:1", "redis://a:1/2"))
				.build())
			.withMessage("Redlock node 'a:1' is listed twice; the nodes must be independent");
	}

	@Test
	void theSharedOptionsAreCheckedByTheSameRulesAsOnOneRedis() {
		assertRefusedNaming("renewalInterval", () -> RedlockRegistry.builder(this.nodes)
				.leaseTime(Duration.ofSeconds(1))
				.renewalInterval(Duration.ofMillis(600))
				.build());
	}

}

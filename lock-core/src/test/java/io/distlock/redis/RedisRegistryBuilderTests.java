package io.distlock.redis;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static io.distlock.redis.InvalidOptionAssertions.assertRefusedNaming;

/**
 * The options every registry on Redis shares are checked once, by the builder, naming the
 * option and its value. Nothing here reaches Redis: an invalid option fails before the store is
 * created (the factory is never started).
 */
class RedisRegistryBuilderTests {

	private final LettuceConnectionFactory connectionFactory = new LettuceConnectionFactory("localhost", 1);

	@Test
	void aRenewalIntervalBelowTheFloorIsRefused() {
		assertRefusedNaming("renewalInterval", () -> builder().leaseTime(Duration.ofSeconds(1)).renewalInterval(Duration.ofMillis(5)).build())
			.withMessage("renewalInterval must be at least 10ms but was 'PT0.005S'");
		assertRefusedNaming("renewalInterval", () -> builder().renewalInterval(Duration.ZERO).build())
			.withMessage("renewalInterval must be positive but was 'PT0S'");
	}

	@Test
	void aRenewalIntervalThatCannotBeRetriedWithinTheLeaseIsRefused() {
		assertRefusedNaming("renewalInterval", () -> builder().leaseTime(Duration.ofSeconds(1)).renewalInterval(Duration.ofMillis(501)).build())
			.withMessage("renewalInterval 'PT0.501S' must be at most half of leaseTime 'PT1S' so that one failed "
					+ "renewal can be retried before the lease expires");
	}

	@Test
	void aLeaseTooShortForTheWatchdogIsRefusedWhenTheRenewalIntervalIsDerived() {
		assertRefusedNaming("leaseTime", () -> builder().leaseTime(Duration.ofMillis(20)).build())
			.withMessageStartingWith("leaseTime must be at least 30ms but was 'PT0.02S': the watchdog renews");
	}

	@Test
	void aLeaseBelowTheMinimumIsNamedBeforeItsOwnRenewalIntervalIsJudged() {
		assertRefusedNaming("leaseTime", () -> builder().leaseTime(Duration.ofMillis(5)).renewalInterval(Duration.ofMillis(10)).build())
			.withMessageStartingWith("leaseTime must be at least 10ms but was 'PT0.005S': Redis expires keys");
	}

	@Test
	void localHandoffLimitsOutOfRangeAreRefused() {
		assertRefusedNaming("maxLocalHandoffs", () -> builder().localHandoff(1001, Duration.ofMillis(50)))
			.withMessage("maxLocalHandoffs must be between 0 and 1000 but was '1001'");
		assertRefusedNaming("maxLocalHandoffs", () -> builder().localHandoff(-1, Duration.ofMillis(50)))
			.withMessage("maxLocalHandoffs must be between 0 and 1000 but was '-1'");
		assertRefusedNaming("maxLocalHandoffTime", () -> builder().localHandoff(16, Duration.ZERO))
			.withMessage("maxLocalHandoffTime must be positive but was 'PT0S'");
	}

	private RedisLockRegistry.Builder builder() {
		return RedisLockRegistry.builder(this.connectionFactory);
	}

}

package io.distlock.redis;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.distlock.core.InvalidRegistryOptionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The options every registry on Redis shares are checked once, by the builder, naming the
 * option and its value. Nothing here reaches Redis: an invalid option fails before the store is
 * created (the factory is never started).
 */
class RedisRegistryBuilderTests {

	private final LettuceConnectionFactory connectionFactory = new LettuceConnectionFactory("localhost", 1);

	@Test
	void aRenewalIntervalBelowTheFloorIsRefused() {
		assertThatExceptionOfType(InvalidRegistryOptionException.class)
			.isThrownBy(() -> builder().leaseTime(Duration.ofSeconds(1)).renewalInterval(Duration.ofMillis(5)).build())
			.withMessage("renewalInterval must be at least 10ms but was 'PT0.005S'")
			.satisfies((ex) -> assertThat(ex.getOption()).isEqualTo("renewalInterval"));
		assertThatExceptionOfType(InvalidRegistryOptionException.class)
			.isThrownBy(() -> builder().renewalInterval(Duration.ZERO).build())
			.withMessage("renewalInterval must be positive but was 'PT0S'");
	}

	@Test
	void aRenewalIntervalThatCannotBeRetriedWithinTheLeaseIsRefused() {
		assertThatExceptionOfType(InvalidRegistryOptionException.class)
			.isThrownBy(() -> builder().leaseTime(Duration.ofSeconds(1)).renewalInterval(Duration.ofMillis(501)).build())
			.withMessage("renewalInterval 'PT0.501S' must be at most half of leaseTime 'PT1S' so that one failed "
					+ "renewal can be retried before the lease expires")
			.satisfies((ex) -> assertThat(ex.getOption()).isEqualTo("renewalInterval"));
	}

	@Test
	void aLeaseTooShortForTheWatchdogIsRefusedWhenTheRenewalIntervalIsDerived() {
		assertThatExceptionOfType(InvalidRegistryOptionException.class)
			.isThrownBy(() -> builder().leaseTime(Duration.ofMillis(20)).build())
			.withMessageStartingWith("leaseTime must be at least 30ms but was 'PT0.02S': the watchdog renews")
			.satisfies((ex) -> assertThat(ex.getOption()).isEqualTo("leaseTime"));
	}

	@Test
	void aLeaseBelowTheMinimumIsNamedBeforeItsOwnRenewalIntervalIsJudged() {
		assertThatExceptionOfType(InvalidRegistryOptionException.class)
			.isThrownBy(() -> builder().leaseTime(Duration.ofMillis(5)).renewalInterval(Duration.ofMillis(10)).build())
			.withMessageStartingWith("leaseTime must be at least 10ms but was 'PT0.005S': Redis expires keys")
			.satisfies((ex) -> assertThat(ex.getOption()).isEqualTo("leaseTime"));
	}

	@Test
	void localHandoffLimitsOutOfRangeAreRefused() {
		assertThatExceptionOfType(InvalidRegistryOptionException.class)
			.isThrownBy(() -> builder().localHandoff(1001, Duration.ofMillis(50)))
			.withMessage("maxLocalHandoffs must be between 0 and 1000 but was '1001'")
			.satisfies((ex) -> assertThat(ex.getOption()).isEqualTo("maxLocalHandoffs"));
		assertThatExceptionOfType(InvalidRegistryOptionException.class)
			.isThrownBy(() -> builder().localHandoff(-1, Duration.ofMillis(50)))
			.withMessage("maxLocalHandoffs must be between 0 and 1000 but was '-1'");
		assertThatExceptionOfType(InvalidRegistryOptionException.class)
			.isThrownBy(() -> builder().localHandoff(16, Duration.ZERO))
			.withMessage("maxLocalHandoffTime must be positive but was 'PT0S'")
			.satisfies((ex) -> assertThat(ex.getOption()).isEqualTo("maxLocalHandoffTime"));
	}

	private RedisLockRegistry.Builder builder() {
		return RedisLockRegistry.builder(this.connectionFactory);
	}

}

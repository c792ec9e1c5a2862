package io.distlock.engine;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import io.distlock.core.LockConfigurationException;
import io.distlock.core.LockListener;
import io.distlock.core.WaitStrategy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class RegistrySettingsTests {

	@Test
	void defaultsRenewEveryThirdOfTheLease() {
		assertThat(RegistrySettings.defaultRenewalInterval(Duration.ofSeconds(30))).isEqualTo(Duration.ofSeconds(10));
		assertThat(RegistrySettings.defaultRetryInterval(WaitStrategy.PUB_SUB)).isEqualTo(Duration.ofSeconds(1));
		assertThat(RegistrySettings.defaultRetryInterval(WaitStrategy.POLLING)).isEqualTo(Duration.ofMillis(100));
	}

	@Test
	void driftMarginIsOnePercentPlusTwoMilliseconds() {
		assertThat(RegistrySettings.driftMargin(Duration.ofSeconds(10))).isEqualTo(Duration.ofMillis(102));
	}

	@Test
	void rejectsNonPositiveAndTinyDurations() {
		assertThatExceptionOfType(LockConfigurationException.class)
			.isThrownBy(() -> settings(Duration.ZERO, Duration.ofMillis(100)))
			.withMessage("leaseTime must be positive but was 'PT0S'");
	}

	@Test
	void rejectsALeaseShorterThanTheMinimumWithTheDriftMarginAsTheReason() {
		assertThatExceptionOfType(LockConfigurationException.class)
			.isThrownBy(() -> settings(Duration.ofMillis(2), Duration.ofMillis(10)))
			.withMessage("leaseTime must be at least 10ms but was 'PT0.002S': Redis expires keys to the millisecond"
					+ " and a holder keeps back a drift margin of 1% plus 2ms, so a shorter lease leaves too little"
					+ " validity to be granted");
	}

	@Test
	void aFixedLeaseMustLeaveMoreThanTheMinimumValidityAfterTheDriftMargin() {
		RegistrySettings settings = new RegistrySettings(Duration.ofSeconds(30), Duration.ofSeconds(10),
				WaitStrategy.PUB_SUB, Duration.ofSeconds(1), new LockListener() {
				}, "instance", RegistrySettings.DEFAULT_DRIFT_FACTOR, Duration.ofMillis(20),
				RegistrySettings.DEFAULT_MAX_LOCAL_HANDOFFS, RegistrySettings.DEFAULT_MAX_LOCAL_HANDOFF_TIME,
				RegistrySettings.DEFAULT_MAX_LEASE_TIME, KeyLimit.DEFAULT);
		assertThatIllegalArgumentException().isThrownBy(() -> settings.requireGrantable(Duration.ofMillis(5), "leaseTime"))
			.withMessageStartingWith("leaseTime must be at least 10ms");
		// 22ms keeps back 2.22ms of drift: 19ms of validity is not more than the 20ms minimum.
		assertThatIllegalArgumentException().isThrownBy(() -> settings.requireGrantable(Duration.ofMillis(22), "leaseTime"))
			.withMessageContaining("leaves 19ms of validity after the drift margin")
			.withMessageContaining("minValidity 'PT0.02S'");
		settings.requireGrantable(Duration.ofMillis(30), "leaseTime");
	}

	@Test
	void localHandoffIsOnByDefault() {
		RegistrySettings settings = settings(Duration.ofSeconds(30), Duration.ofSeconds(10));
		assertThat(settings.maxLocalHandoffs()).isEqualTo(64);
		assertThat(settings.maxLocalHandoffTime()).isEqualTo(Duration.ofMillis(50));
		assertThat(settings.withLocalHandoff(0, Duration.ofMillis(1)).maxLocalHandoffs()).isZero();
	}

	@Test
	void instanceIdsDiffer() {
		assertThat(RegistrySettings.newInstanceId()).isNotEqualTo(RegistrySettings.newInstanceId())
			.startsWith(ProcessHandle.current().pid() + "-");
	}

	private static RegistrySettings settings(Duration lease, Duration renewal) {
		return new RegistrySettings(lease, renewal, WaitStrategy.PUB_SUB, Duration.ofSeconds(1), LockListener.NONE,
				"test");
	}

}

package io.distlock.core;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class LockRequestTests {

	@Test
	void defaultsToTryingOnceWithTheWatchdog() {
		LockRequest request = LockRequest.of("stock:42");
		assertThat(request.key()).isEqualTo("stock:42");
		assertThat(request.waitTime()).isZero();
		assertThat(request.leaseTime()).isNull();
		assertThat(request).hasToString("LockRequest[name='unnamed', key='stock:42', waitTime=PT0S, leaseTime=watchdog]");
	}

	@Test
	void copiesOnEveryChange() {
		LockRequest base = LockRequest.of("k");
		LockRequest changed = base.waitTime(Duration.ofSeconds(2)).leaseTime(Duration.ofSeconds(5));
		assertThat(base.waitTime()).isZero();
		assertThat(changed.waitTime()).isEqualTo(Duration.ofSeconds(2));
		assertThat(changed.leaseTime()).isEqualTo(Duration.ofSeconds(5));
		assertThat(changed.leaseTime(null).leaseTime()).isNull();
	}

	@Test
	void rejectsUnusableKeysAndTimes() {
		assertThatExceptionOfType(LockKeyException.class).isThrownBy(() -> LockRequest.of(null))
			.withMessage("Lock key must not be null");
		assertThatExceptionOfType(LockKeyException.class).isThrownBy(() -> LockRequest.of("  "))
			.withMessage("Lock key must not be blank but was '  '");
		assertThatIllegalArgumentException().isThrownBy(() -> LockRequest.of("k").waitTime(Duration.ofMillis(-1)))
			.withMessage("waitTime must not be negative but was 'PT-0.001S'");
		assertThatIllegalArgumentException().isThrownBy(() -> LockRequest.of("k").leaseTime(Duration.ZERO))
			.withMessageStartingWith("leaseTime must be at least 10ms but was 'PT0S': Redis expires keys");
	}

	@Test
	void refusesLeasesShorterThanTheMinimumAndAcceptsTheMinimum() {
		assertThatIllegalArgumentException().isThrownBy(() -> LockRequest.of("k").leaseTime(Duration.ofMillis(9)))
			.withMessageContaining("leaseTime must be at least 10ms but was 'PT0.009S'")
			.withMessageContaining("drift margin");
		assertThatIllegalArgumentException().isThrownBy(() -> LockRequest.of("k").leaseTime(Duration.ofMillis(-5)));
		assertThat(LockRequest.of("k").leaseTime(LockRequest.MIN_LEASE_TIME).leaseTime())
			.isEqualTo(Duration.ofMillis(10));
	}

}

package io.distlock.autoconfigure;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.distlock.annotation.DistributedLock;
import io.distlock.core.LockContext;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * A call from a bean to its own annotated method bypasses the proxy and takes no lock
 * (reliability catalogue B14): it cannot be seen at startup, so a method that must run under its
 * lock asserts it with {@link LockContext#current()}, which fails when the thread holds none, as
 * ShedLock's {@code LockAssert.assertLocked()} does.
 */
@Timeout(60)
class SelfInvocationIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@Test
	void aCallThroughTheProxyRunsUnderTheLock() {
		DistlockRunners.withRedis(redis.server()).withBean(Nightly.class).run((context) -> {
			assertThat(context.getBean(Nightly.class).report(7)).isEqualTo("report:7 held in Redis=true");
		});
	}

	@Test
	void aSelfInvocationTakesNoLockAndTheAssertionSaysSo() {
		DistlockRunners.withRedis(redis.server()).withBean(Nightly.class).run((context) -> {
			Nightly nightly = context.getBean(Nightly.class);
			assertThatIllegalStateException().isThrownBy(() -> nightly.reportAll(8))
				.withMessageContaining("holds no distributed lock");
			assertThat(redis.server().template().hasKey("distlock:{report:8}")).isFalse();
		});
	}

	public static class Nightly {

		@DistributedLock(key = "'report:' + #day")
		public String report(int day) {
			String key = LockContext.current().key();
			return key + " held in Redis=" + redis.server().template().hasKey("distlock:{" + key + "}");
		}

		public String reportAll(int day) {
			return report(day);
		}

	}

}

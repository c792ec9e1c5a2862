package io.distlock.docs;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.distlock.core.LockLease;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The code block of {@code docs/test-kit.md}, cut from the region between the tag markers below
 * and run as the test it shows.
 */
@Timeout(60)
class TestKitSnippetsIntegrationTests {

	// tag::extension[]
	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@Test
	void locksSurviveAFrozenServer() {
		RedisLockRegistry registry = new RedisLockRegistry(redis.server().connectionFactory());
		try (LockLease lease = registry.acquire("stock:42", Duration.ofSeconds(2))) {
			redis.server().pause();    // SIGSTOP: a frozen server
			redis.server().resume();
			assertThat(lease.isValid()).isTrue();
		}
		long before = redis.server().scriptCalls();    // INFO commandstats: what the server ran
		registry.acquire("stock:42", Duration.ofSeconds(2)).release();
		assertThat(redis.server().scriptCalls() - before).isEqualTo(2);    // one acquire, one release
		redis.server().kill();     // SIGKILL: a crash
		redis.server().restart();  // same port, empty
	}
	// end::extension[]

}

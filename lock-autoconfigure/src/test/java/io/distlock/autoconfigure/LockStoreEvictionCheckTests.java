package io.distlock.autoconfigure;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import io.distlock.test.redis.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * T22's startup half: a lock Redis that may evict keys is reported at startup, or refused with
 * {@code distlock.eviction-check=strict}; a Redis that never evicts passes even the strict check.
 * A Redlock node that cannot be read: {@link RedlockNodeChecksTests}.
 */
@ExtendWith(OutputCaptureExtension.class)
class LockStoreEvictionCheckTests {

	private static RedisServer evicting;

	private static RedisServer safe;

	@BeforeAll
	static void start() {
		evicting = RedisServer.start("--maxmemory", "2mb", "--maxmemory-policy", "volatile-lru");
		safe = RedisServer.start("--maxmemory", "2mb", "--maxmemory-policy", "noeviction");
	}

	@AfterAll
	static void stop() {
		evicting.close();
		safe.close();
	}

	@Test
	void anEvictingRedisIsReportedAtStartup(CapturedOutput output) {
		DistlockRunners.withRedis(evicting).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output).contains("Distributed locks: the Redis that holds the locks evicts keys at maxmemory "
					+ "2097152 bytes (maxmemory-policy volatile-lru)")
				.contains("set distlock.eviction-check=strict to refuse to start");
		});
	}

	@Test
	void strictRefusesAnEvictingRedisNamingTheProperty() {
		DistlockRunners.withRedis(evicting).withPropertyValues("distlock.eviction-check=strict").run((context) -> {
			assertThat(context).hasFailed();
			InvalidLockPropertyException cause = DistlockRunners.invalidProperty(context.getStartupFailure());
			assertThat(cause.getMessage()).startsWith("Property 'distlock.eviction-check' with value 'strict' refuses "
					+ "to start: the Redis that holds the locks evicts keys at maxmemory 2097152 bytes "
					+ "(maxmemory-policy volatile-lru)");
			FailureAnalysis analysis = new LockConfigurationFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis.getAction())
				.isEqualTo("Update 'distlock.eviction-check' in your application configuration.");
		});
	}

	@Test
	void aRedisThatNeverEvictsPassesTheStrictCheck(CapturedOutput output) {
		DistlockRunners.withRedis(safe).withPropertyValues("distlock.eviction-check=strict").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output).doesNotContain("evicts keys");
		});
	}

	@Test
	void anEvictingRedlockNodeIsReportedByItsAddress(CapturedOutput output) {
		try (RedisServer third = RedisServer.start()) {
			redlock(third).run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(output).contains("Distributed locks: the Redlock node 127.0.0.1:" + evicting.port()
						+ " evicts keys at maxmemory 2097152 bytes (maxmemory-policy volatile-lru)")
					.doesNotContain("127.0.0.1:" + safe.port() + " evicts")
					.doesNotContain("127.0.0.1:" + third.port() + " evicts");
			});
		}
	}

	@Test
	void strictRefusesAnEvictingRedlockNode() {
		try (RedisServer third = RedisServer.start()) {
			redlock(third).withPropertyValues("distlock.eviction-check=strict").run((context) -> {
				assertThat(context).hasFailed();
				assertThat(DistlockRunners.invalidProperty(context.getStartupFailure()).getMessage())
					.startsWith("Property 'distlock.eviction-check' with value 'strict' refuses to start: the Redlock "
							+ "node 127.0.0.1:" + evicting.port() + " evicts keys");
			});
		}
	}

	private static ApplicationContextRunner redlock(RedisServer third) {
		return DistlockRunners.withRedlock(safe, evicting, third)
			.withPropertyValues("distlock.redlock.per-node-timeout=200ms");
	}

	@Test
	void offChecksNothing(CapturedOutput output) {
		DistlockRunners.withRedis(evicting).withPropertyValues("distlock.eviction-check=off").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output).doesNotContain("evicts keys");
		});
	}

}

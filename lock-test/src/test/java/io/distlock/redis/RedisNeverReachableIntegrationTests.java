package io.distlock.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.distlock.core.LockAcquisitionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A registry over a Redis that never answered (nothing listens on its port): it is built, and
 * every acquisition fails at once with the store's failure as its cause, never as a grant and
 * never after waiting out its wait time as if the lock were taken.
 */
@Timeout(30)
class RedisNeverReachableIntegrationTests {

	private LettuceConnectionFactory factory;

	private RedisLockRegistry registry;

	@AfterEach
	void close() {
		if (this.registry != null) {
			this.registry.close();
		}
		this.factory.destroy();
	}

	@Test
	void everyAcquisitionFailsAtOnceWithTheStoresFailure() {
		this.factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", freePort()),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(2)).build());
		this.factory.afterPropertiesSet();
		this.factory.start();
		this.registry = RedisLockRegistry.builder(this.factory).build();
		String key = "never:" + UUID.randomUUID();
		long start = System.nanoTime();
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> this.registry.acquire(key, Duration.ofSeconds(5)))
			.withMessageStartingWith("Could not acquire lock for key '" + key + "': the lock store failed")
			.withCauseInstanceOf(DataAccessException.class);
		assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("failed at once, not at the wait time")
			.isLessThan(2_000);
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> this.registry.obtain(key).tryLock(Duration.ofSeconds(1)));
		assertThat(this.registry.localKeyCount()).isZero();
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}

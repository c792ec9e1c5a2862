package io.distlock.redis;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.distlock.core.DistLock;
import io.distlock.core.LockLease;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which connections the Redis store sends its scripts on: one kept connection on a factory that
 * shares its native Lettuce connection (none created per call), a fresh one once the factory
 * replaced its native connection, and a connection of its own per call, given back, on a factory
 * that does not share.
 */
@Timeout(60)
class StoreConnectionsIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private CountingFactory factory;

	private RedisLockRegistry registry;

	@AfterEach
	void close() {
		if (this.registry != null) {
			this.registry.close();
		}
		if (this.factory != null) {
			this.factory.destroy();
		}
	}

	@Test
	void aSharedNativeConnectionIsAskedForOnceNotForEveryCall() {
		DistLock lock = registry(true).obtain(randomKey());
		lock.lock();
		lock.unlock();
		int afterFirstCycle = this.factory.connections.get();
		for (int i = 0; i < 20; i++) {
			lock.lock();
			lock.unlock();
		}
		assertThat(this.factory.connections.get()).as("connections asked of the factory by 20 more cycles")
			.isEqualTo(afterFirstCycle);
	}

	@Test
	void aNativeConnectionTheFactoryReplacedIsNotUsedAgain() {
		RedisLockRegistry locks = registry(true);
		String key = randomKey();
		try (LockLease lease = locks.acquire(key, Duration.ZERO)) {
			assertThat(lease.fencingToken()).isPositive();
		}
		int before = this.factory.connections.get();
		this.factory.resetConnection();
		try (LockLease lease = locks.acquire(key, Duration.ofSeconds(5))) {
			assertThat(lease.fencingToken()).isPositive();
		}
		assertThat(this.factory.connections.get()).as("a fresh connection after the reset").isGreaterThan(before);
		this.factory.stop();
		this.factory.start();
		try (LockLease lease = locks.acquire(key, Duration.ofSeconds(5))) {
			assertThat(lease.fencingToken()).isPositive();
		}
	}

	@Test
	void withoutASharedNativeConnectionEachCallTakesItsOwnAndClosesIt() throws Exception {
		DistLock lock = registry(false).obtain(randomKey());
		lock.lock();
		lock.unlock();
		int before = this.factory.connections.get();
		for (int i = 0; i < 5; i++) {
			lock.lock();
			lock.unlock();
		}
		assertThat(this.factory.connections.get() - before).as("one connection per acquire and per release")
			.isEqualTo(10);
		// Each call's own native connection is closed once answered.
		long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
		while (clientsOpenedByTheFactory() > 0 && System.nanoTime() < deadline) {
			Thread.sleep(20);
		}
		assertThat(clientsOpenedByTheFactory()).as("connections of the factory still open").isZero();
	}

	private RedisLockRegistry registry(boolean shareNativeConnection) {
		this.factory = new CountingFactory(redis.server().port());
		this.factory.setShareNativeConnection(shareNativeConnection);
		this.factory.afterPropertiesSet();
		this.factory.start();
		this.registry = RedisLockRegistry.builder(this.factory).build();
		return this.registry;
	}

	/** The connections named by the counting factory's client name that the server still has. */
	private static long clientsOpenedByTheFactory() {
		String clients = redis.server().template().execute((RedisConnection connection) -> {
			StringBuilder names = new StringBuilder();
			connection.serverCommands().getClientList().forEach((client) -> names.append(client.getName()).append('\n'));
			return names.toString();
		});
		return clients.lines().filter(CountingFactory.CLIENT_NAME::equals).count();
	}

	private static String randomKey() {
		return "it:" + UUID.randomUUID();
	}

	/** A Lettuce factory that counts the connections it hands out; its clients carry a name. */
	static final class CountingFactory extends LettuceConnectionFactory {

		static final String CLIENT_NAME = "store-connections-test";

		final AtomicInteger connections = new AtomicInteger();

		CountingFactory(int port) {
			super(new RedisStandaloneConfiguration("127.0.0.1", port),
					LettuceClientConfiguration.builder().clientName(CLIENT_NAME).commandTimeout(Duration.ofSeconds(2))
						.build());
		}

		@Override
		public RedisConnection getConnection() {
			this.connections.incrementAndGet();
			return super.getConnection();
		}

	}

}

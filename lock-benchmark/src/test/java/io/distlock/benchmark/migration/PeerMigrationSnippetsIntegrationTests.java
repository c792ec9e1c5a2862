package io.distlock.benchmark.migration;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;

import io.distlock.test.redis.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The "before" code of {@code docs/migration.md} for the two peers this module depends on
 * (Redisson and Spring Integration), compiled and run against a real {@code redis-server}, so
 * the page shows code that works as written: each locks, and refuses while another thread
 * holds the key.
 */
@Timeout(60)
class PeerMigrationSnippetsIntegrationTests {

	private static RedisServer redis;

	private static RedissonClient redisson;

	@BeforeAll
	static void start() {
		redis = RedisServer.start();
		Config config = new Config();
		config.useSingleServer().setAddress("redis://127.0.0.1:" + redis.port());
		redisson = Redisson.create(config);
	}

	@AfterAll
	static void stop() {
		redisson.shutdown();
		redis.close();
	}

	@Test
	void redissonsLockRunsTheSectionAndRefusesWhileAnotherHoldsIt() throws InterruptedException {
		RedissonStock stock = new RedissonStock(redisson);
		assertThat(stock.reserve(42, 3)).isTrue();
		RLock other = redisson.getLock("stock:42");
		inAnotherThread(other::lock);
		assertThat(stock.reserve(42, 1)).isFalse();
		inAnotherThread(other::forceUnlock);
		assertThat(stock.reserved()).isEqualTo(3);
	}

	@Test
	void springIntegrationsLockRunsTheSectionAndRefusesWhileAnotherHoldsIt() throws InterruptedException {
		SpringIntegrationInvoices invoices = new SpringIntegrationInvoices(redis.connectionFactory());
		assertThat(invoices.send("A-1")).isTrue();
		Lock other = new RedisLockRegistry(redis.connectionFactory(), "locks").obtain("invoice:A-2");
		inAnotherThread(other::lock);
		assertThat(invoices.send("A-2")).isFalse();
		assertThat(invoices.sent).containsExactly("A-1");
	}

	private static void inAnotherThread(Runnable action) throws InterruptedException {
		Thread thread = new Thread(action);
		thread.start();
		thread.join();
	}

	static class RedissonStock {

		private final RedissonClient redisson;

		private final AtomicInteger reserved = new AtomicInteger();

		RedissonStock(RedissonClient redisson) {
			this.redisson = redisson;
		}

		// tag::redisson[]
		boolean reserve(long productId, int quantity) throws InterruptedException {
			RLock lock = redisson.getLock("stock:" + productId);
			if (!lock.tryLock(2, TimeUnit.SECONDS)) { // no lease time: the watchdog renews it
				return false;
			}
			try {
				return reserveInDatabase(productId, quantity);
			}
			finally {
				lock.unlock();
			}
		}
		// end::redisson[]

		private boolean reserveInDatabase(long productId, int quantity) {
			this.reserved.addAndGet(quantity);
			return true;
		}

		int reserved() {
			return this.reserved.get();
		}

	}

	static class SpringIntegrationInvoices {

		private final RedisLockRegistry registry;

		private final Set<String> sent = ConcurrentHashMap.newKeySet();

		SpringIntegrationInvoices(RedisConnectionFactory connectionFactory) {
			// tag::spring-integration-registry[]
			RedisLockRegistry registry = new RedisLockRegistry(connectionFactory, "locks", 60_000);
			// end::spring-integration-registry[]
			this.registry = registry;
		}

		// tag::spring-integration[]
		boolean send(String invoiceId) throws InterruptedException {
			Lock lock = registry.obtain("invoice:" + invoiceId);
			if (lock.tryLock(1, TimeUnit.SECONDS)) {
				try {
					return markSent(invoiceId);
				}
				finally {
					lock.unlock();
				}
			}
			return false;
		}
		// end::spring-integration[]

		private boolean markSent(String invoiceId) {
			return this.sent.add(invoiceId);
		}

	}

}

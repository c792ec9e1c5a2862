package io.distlock.contract;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.distlock.core.LockConfigurationException;
import io.distlock.core.LockLease;
import io.distlock.core.LockLostException;
import io.distlock.core.LockRequest;
import io.distlock.engine.AbstractLockRegistry;
import io.distlock.test.contract.AbstractLockRegistryContractTests;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.redlock.RedlockRegistry;
import io.distlock.test.redis.RedisNodesExtension;
import io.distlock.test.redis.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The contract on Redlock over three real {@code redis-server} processes. "In the store" means
 * on a quorum of the nodes; an operator's delete removes the key from every node. Fair and
 * read/write locks are refused by Redlock, so their tests are skipped and the refusal is
 * checked instead.
 */
class RedlockRegistryContractIntegrationTests extends AbstractLockRegistryContractTests {

	@RegisterExtension
	static final RedisNodesExtension redlock = new RedisNodesExtension(3, Duration.ofSeconds(2));

	@Override
	public AbstractLockRegistry createRegistry(Duration leaseTime) {
		return RedlockRegistry.builder(redlock.connectionFactories()).leaseTime(leaseTime).build();
	}

	@Override
	public boolean offersFairAndReadWriteLocks() {
		return false;
	}

	/**
	 * Delete the key on every node, once every node has it: an acquisition returns as soon as a
	 * quorum granted it, and the last node's grant may still be on its way (it would land after
	 * the delete). Every caller has just acquired the key on healthy nodes.
	 */
	@Override
	public void deleteInStore(AbstractLockRegistry registry, String key) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
		while (!redlock.servers().stream().allMatch((node) -> Boolean.TRUE.equals(node.template().hasKey(lockKey(key))))
				&& System.nanoTime() < deadline) {
			Thread.onSpinWait();
		}
		redlock.servers().forEach((node) -> node.template().delete(lockKey(key)));
	}

	/**
	 * Redlock's renewal re-creates a key missing on a node (a node that restarted empty gets it
	 * back), so a delete alone is healed; a grant is lost when another owner took a quorum.
	 */
	@Override
	public void loseInStore(AbstractLockRegistry registry, String key) {
		deleteInStore(registry, key);
		for (int i = 0; i < redlock.servers().size() / 2 + 1; i++) {
			redlock.node(i).template().opsForValue().set(lockKey(key), "another-process:grant", Duration.ofSeconds(30));
		}
	}

	@Override
	public boolean isHeldInStore(AbstractLockRegistry registry, String key) {
		long holding = redlock.servers()
			.stream()
			.filter((node) -> Boolean.TRUE.equals(node.template().hasKey(lockKey(key))))
			.count();
		return holding >= redlock.servers().size() / 2 + 1;
	}

	private static String lockKey(String key) {
		return RedisLockRegistry.DEFAULT_KEY_PREFIX + "{" + key + "}";
	}

	@Test
	void aKeyDeletedOnEveryNodeIsLostNotRecreated() throws Exception {
		AbstractLockRegistry registry = registry(Duration.ofMillis(900));
		String key = randomKey();
		CountDownLatch lost = new CountDownLatch(1);
		LockLease lease = registry.acquire(key, Duration.ZERO);
		lease.onLost((ex) -> lost.countDown());
		deleteInStore(registry, key);
		// While the key was missing, another client could have taken a quorum: the next renewal
		// must not count the nodes it re-creates the key on.
		assertThat(lost.await(5, TimeUnit.SECONDS)).isTrue();
		assertThat(lease.isValid()).isFalse();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lease::release);
		assertThat(isHeldInStore(registry, key)).isFalse();
	}

	@Test
	void aKeyMissingOnOneNodeIsRecreatedThereAndTheLockKept() {
		AbstractLockRegistry registry = registry(Duration.ofMillis(900));
		String key = randomKey();
		AtomicInteger lost = new AtomicInteger();
		try (LockLease lease = registry.acquire(key, Duration.ZERO)) {
			lease.onLost((ex) -> lost.incrementAndGet());
			redlock.node(0).template().delete(lockKey(key));
			await().atMost(Duration.ofSeconds(3))
				.until(() -> Boolean.TRUE.equals(redlock.node(0).template().hasKey(lockKey(key))));
			assertThat(lease.isValid()).isTrue();
		}
		assertThat(lost).hasValue(0);
		assertThat(isHeldInStore(registry, key)).isFalse();
	}

	@Test
	void extendOfAKeyDeletedOnEveryNodeIsRefusedAndRecreatesNothing() {
		AbstractLockRegistry registry = registry();
		String key = randomKey();
		LockLease lease = registry
			.acquire(LockRequest.of(key).waitTime(Duration.ofSeconds(2)).leaseTime(Duration.ofSeconds(10)));
		deleteInStore(registry, key);
		assertThat(lease.extend(Duration.ofSeconds(30))).isFalse();
		assertThat(redlock.servers()).as("nodes holding the key after the refused extension")
			.noneMatch((node) -> Boolean.TRUE.equals(node.template().hasKey(lockKey(key))));
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lease::release);
	}

	@Test
	void extendCountsAQuorumAndLeavesANodeThatLostTheKeyWithout() {
		AbstractLockRegistry registry = registry();
		String key = randomKey();
		try (LockLease lease = registry
			.acquire(LockRequest.of(key).waitTime(Duration.ofSeconds(2)).leaseTime(Duration.ofSeconds(10)))) {
			// The grant counts once a quorum answered: let the last node's SET land before the key
			// is taken from node 0, or it could land after the delete and bring the key back.
			await().atMost(Duration.ofSeconds(5))
				.until(() -> redlock.servers()
					.stream()
					.allMatch((node) -> Boolean.TRUE.equals(node.template().hasKey(lockKey(key)))));
			redlock.node(0).template().delete(lockKey(key));
			assertThat(lease.extend(Duration.ofSeconds(30))).isTrue();
			assertThat(redlock.node(0).template().hasKey(lockKey(key))).isFalse();
			for (RedisServer node : redlock.servers().subList(1, redlock.servers().size())) {
				assertThat(node.template().getExpire(lockKey(key), TimeUnit.MILLISECONDS)).isBetween(25_000L, 30_000L);
			}
		}
		assertThat(isHeldInStore(registry, key)).isFalse();
	}

	@Test
	void fairAndReadWriteLocksAreRefused() {
		AbstractLockRegistry registry = registry();
		assertThatExceptionOfType(LockConfigurationException.class).isThrownBy(() -> registry.obtainFair(randomKey()));
		assertThatExceptionOfType(LockConfigurationException.class)
			.isThrownBy(() -> registry.obtainReadWrite(randomKey()));
	}

}

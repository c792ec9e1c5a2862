package io.distlock.redlock;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.core.StringRedisTemplate;

import io.distlock.core.LockLease;
import io.distlock.core.LockListener;
import io.distlock.core.LockLostException;
import io.distlock.core.LockRequest;
import io.distlock.test.redis.RedisNodesExtension;
import io.distlock.test.registry.LockRegistries;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Redlock over three real {@code redis-server} processes where some nodes hold the lock key for
 * another owner: every step of ours (acquire, give-back, renewal, extend, release) is
 * owner-compared on every node, so the other owner's value and its TTL stay exactly as they
 * were, whether ours got a quorum or not.
 */
@Timeout(60)
class RedlockKeysOfOtherOwnersIntegrationTests {

	private static final String OTHER = "another-process:grant";

	@RegisterExtension
	static final RedisNodesExtension redlock = new RedisNodesExtension(3, Duration.ofSeconds(2));

	@RegisterExtension
	final LockRegistries registries = new LockRegistries();

	@Test
	void aMinorityHeldByAnotherOwnerIsLeftAsItWasWhileAQuorumAcquiresExtendsAndReleases() {
		RedlockRegistry registry = registry(Duration.ofSeconds(2), LockListener.NONE);
		String key = this.registries.randomKey();
		// No TTL: an owner-compared script never gives it one; a blind PEXPIRE would.
		node(2).opsForValue().set(lockKey(key), OTHER);
		LockLease lease = registry
			.acquire(LockRequest.of(key).waitTime(Duration.ofSeconds(2)).leaseTime(Duration.ofSeconds(6)));
		for (int i = 0; i < 2; i++) {
			assertThat(ttlMillis(i, key)).as("node %d: our lease is its TTL", i).isBetween(5_000L, 6_000L);
		}
		assertUntouched(2, key);
		assertThat(lease.extend(Duration.ofSeconds(18))).isTrue();
		for (int i = 0; i < 2; i++) {
			assertThat(ttlMillis(i, key)).as("node %d: extended", i).isBetween(17_000L, 18_000L);
		}
		assertUntouched(2, key);
		lease.release();
		for (int i = 0; i < 2; i++) {
			assertThat(node(i).hasKey(lockKey(key))).as("node %d: released", i).isFalse();
		}
		assertUntouched(2, key);
	}

	@Test
	void renewalsLeaveAMinorityHeldByAnotherOwnerAsItWas() {
		AtomicInteger renewals = new AtomicInteger();
		RedlockRegistry registry = registry(Duration.ofMillis(300), new LockListener() {

			@Override
			public void onRenewed(LockLease lease) {
				renewals.incrementAndGet();
			}

		});
		String key = this.registries.randomKey();
		node(0).opsForValue().set(lockKey(key), OTHER);
		AtomicInteger lost = new AtomicInteger();
		try (LockLease lease = registry.acquire(key, Duration.ofSeconds(2))) {
			lease.onLost((ex) -> lost.incrementAndGet());
			// A renewal re-creates the key on a node where it is missing; where another owner
			// holds it, it must neither overwrite the value nor move its TTL.
			await().atMost(Duration.ofSeconds(5)).until(() -> renewals.get() >= 5);
			assertUntouched(0, key);
			assertThat(lease.isValid()).isTrue();
		}
		assertThat(lost).hasValue(0);
		assertUntouched(0, key);
		assertThat(node(1).hasKey(lockKey(key))).isFalse();
		assertThat(node(2).hasKey(lockKey(key))).isFalse();
	}

	@Test
	void aMajorityHeldByOtherOwnersGrantsNothingAndLeavesTheirKeysAsTheyWere() {
		// A lease far longer than the test: a key left behind would not expire by itself meanwhile.
		RedlockRegistry registry = registry(Duration.ofSeconds(30), LockListener.NONE);
		String key = this.registries.randomKey();
		node(1).opsForValue().set(lockKey(key), OTHER + "-1");
		node(2).opsForValue().set(lockKey(key), OTHER + "-2");
		// Several attempts within the wait time: each one is given back on node 0.
		assertThat(registry.tryAcquire(key, Duration.ofMillis(500))).isEmpty();
		await().atMost(Duration.ofSeconds(2))
			.untilAsserted(() -> assertThat(node(0).hasKey(lockKey(key))).as("our attempts given back on node 0")
				.isFalse());
		assertUntouched(1, key, OTHER + "-1");
		assertUntouched(2, key, OTHER + "-2");
		assertThat(registry.localKeyCount()).isZero();
	}

	@Test
	void anExtensionWhileAnotherOwnerHoldsAQuorumIsRefusedAndLeavesItsKeysAsTheyWere() {
		String key = this.registries.randomKey();
		AtomicInteger lost = new AtomicInteger();
		LockLease lease = fixedLeaseOnEveryNode(key, Duration.ofSeconds(10), lost);
		// Another owner took nodes 0 and 1 (the grant there had expired, say), with a TTL of its own.
		for (int i = 0; i < 2; i++) {
			node(i).opsForValue().set(lockKey(key), OTHER, Duration.ofSeconds(30));
		}
		assertThat(lease.extend(Duration.ofSeconds(5))).isFalse();
		assertThat(lost).hasValue(1);
		for (int i = 0; i < 2; i++) {
			assertThat(node(i).opsForValue().get(lockKey(key))).as("node %d: the other owner's value", i)
				.isEqualTo(OTHER);
			assertThat(ttlMillis(i, key)).as("node %d: the other owner's TTL, not our 5 s", i)
				.isBetween(25_000L, 30_000L);
		}
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lease::release);
		for (int i = 0; i < 2; i++) {
			assertThat(node(i).opsForValue().get(lockKey(key))).as("node %d: after our release", i).isEqualTo(OTHER);
		}
	}

	@Test
	void confirmCountsAQuorumOfNodesNotEveryNode() {
		String key = this.registries.randomKey();
		AtomicInteger lost = new AtomicInteger();
		// A fixed lease: no renewal re-creates what is deleted below.
		LockLease lease = fixedLeaseOnEveryNode(key, Duration.ofSeconds(30), lost);
		node(0).delete(lockKey(key));
		assertThat(lease.confirm()).as("two of three nodes still hold it").isTrue();
		assertThat(lease.isValid()).isTrue();
		assertThat(lost).hasValue(0);
		node(1).delete(lockKey(key));
		assertThat(lease.confirm()).as("one of three nodes holds it").isFalse();
		assertThat(lease.isValid()).isFalse();
		assertThat(lost).hasValue(1);
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lease::release);
	}

	/**
	 * Acquire the key with a fixed lease whose losses the counter counts, and wait until every
	 * node has the grant.
	 */
	private LockLease fixedLeaseOnEveryNode(String key, Duration leaseTime, AtomicInteger lost) {
		LockLease lease = registry(Duration.ofSeconds(2), LockListener.NONE)
			.acquire(LockRequest.of(key).waitTime(Duration.ofSeconds(2)).leaseTime(leaseTime));
		lease.onLost((ex) -> lost.incrementAndGet());
		awaitOnEveryNode(key);
		return lease;
	}

	private RedlockRegistry registry(Duration leaseTime, LockListener listener) {
		return this.registries.add(RedlockRegistry.builder(redlock.connectionFactories())
			.perNodeTimeout(Duration.ofMillis(200))
			.leaseTime(leaseTime)
			.listener(listener)
			.build());
	}

	/**
	 * Wait until every node has our grant: an acquisition returns once a quorum granted it, and
	 * the last node's grant may still be on its way (it would land after a change made here).
	 */
	private static void awaitOnEveryNode(String key) {
		await().atMost(Duration.ofSeconds(2))
			.until(() -> redlock.servers()
				.stream()
				.allMatch((node) -> Boolean.TRUE.equals(node.template().hasKey(lockKey(key)))));
	}

	private static void assertUntouched(int node, String key) {
		assertUntouched(node, key, OTHER);
	}

	private static void assertUntouched(int node, String key, String value) {
		assertThat(node(node).opsForValue().get(lockKey(key))).as("node %d: the other owner's value", node)
			.isEqualTo(value);
		assertThat(node(node).getExpire(lockKey(key), TimeUnit.MILLISECONDS))
			.as("node %d: the other owner's key still has no TTL", node)
			.isEqualTo(-1L);
	}

	private static long ttlMillis(int node, String key) {
		return node(node).getExpire(lockKey(key), TimeUnit.MILLISECONDS);
	}

	private static StringRedisTemplate node(int index) {
		return redlock.node(index).template();
	}

	private static String lockKey(String key) {
		return "distlock:{" + key + "}";
	}

}

package io.distlock.cluster;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.connection.ClusterSlotHashUtil;

import io.distlock.core.DistLock;
import io.distlock.core.DistReadWriteLock;
import io.distlock.core.LockLease;
import io.distlock.detector.HandoffLatency;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.test.process.ChildJvm;
import io.distlock.test.process.ClusterLockHolderMain;
import io.distlock.test.redis.RedisCluster;
import io.distlock.test.registry.LockRegistries;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every lock kind on a real three-master Redis Cluster: each script touches one slot, so nothing
 * fails with CROSSSLOT, whichever master owns a key; multi-locks span slots; the watchdog renews
 * locks of many slots; release notifications cross the cluster.
 */
@Timeout(120)
class RedisClusterIntegrationTests {

	private static RedisCluster cluster;

	@RegisterExtension
	final LockRegistries registries = new LockRegistries(() -> cluster.connectionFactory());

	@BeforeAll
	static void startCluster() {
		cluster = RedisCluster.start(3);
	}

	@AfterAll
	static void stopCluster() {
		cluster.close();
	}

	@Test
	void locksOnEveryMasterWithoutCrossSlotErrors() {
		RedisLockRegistry registry = registry(Duration.ofSeconds(30));
		Set<Integer> masters = new HashSet<>();
		for (int i = 0; i < 200; i++) {
			String key = "cluster:" + UUID.randomUUID();
			masters.add(ClusterSlotHashUtil.calculateSlot("distlock:{" + key + "}") * 3 / 16_384);
			try (LockLease lease = registry.acquire(key, Duration.ZERO)) {
				assertThat(lease.fencingToken()).isPositive();
			}
		}
		assertThat(masters).containsExactlyInAnyOrder(0, 1, 2);
	}

	@Test
	void fairReadWriteAndMultiLocksWorkAcrossSlots() throws Exception {
		RedisLockRegistry registry = registry(Duration.ofSeconds(30));
		DistLock fair = registry.obtainFair("cluster-fair:" + UUID.randomUUID());
		assertThat(fair.tryLock(Duration.ZERO)).isTrue();
		fair.unlock();
		DistReadWriteLock readWrite = registry.obtainReadWrite("cluster-rw:" + UUID.randomUUID());
		readWrite.readLock().lock();
		readWrite.readLock().unlock();
		readWrite.writeLock().lock();
		readWrite.writeLock().unlock();
		DistLock multi = registry.obtainMulti("a:" + UUID.randomUUID(), "b:" + UUID.randomUUID(),
				"c:" + UUID.randomUUID(), "d:" + UUID.randomUUID());
		assertThat(multi.tryLock(Duration.ofSeconds(1))).isTrue();
		multi.unlock();
	}

	@Test
	void theWatchdogRenewsLocksInManySlots() throws Exception {
		RedisLockRegistry registry = registry(Duration.ofMillis(600));
		List<LockLease> leases = new ArrayList<>();
		for (int i = 0; i < 30; i++) {
			leases.add(registry.acquire("renew:" + UUID.randomUUID(), Duration.ZERO));
		}
		DistReadWriteLock readWrite = registry.obtainReadWrite("renew-read:" + UUID.randomUUID());
		readWrite.readLock().lock();
		Thread.sleep(2_000);
		assertThat(leases).allSatisfy((lease) -> assertThat(lease.isValid()).isTrue());
		assertThat(readWrite.readLock().isHeldByCurrentThread()).isTrue();
		readWrite.readLock().unlock();
		leases.forEach(LockLease::release);
		assertThat(registry.getLossStatistics().lostCount()).isZero();
	}

	@Test
	void aWaiterIsWokenByAReleaseOnAnotherMaster() throws Exception {
		RedisLockRegistry holder = registry(Duration.ofSeconds(30));
		RedisLockRegistry waiter = this.registries.redis((builder) -> builder.retryInterval(Duration.ofSeconds(20)));
		String key = "cluster-wake:" + UUID.randomUUID();
		assertThat(HandoffLatency.millis(holder, waiter, key, Duration.ofMillis(500))).isLessThan(1_000);
	}

	/**
	 * The watchdog renews the locks of one slot together, and a script may touch only one slot:
	 * the slot must be that of the key's UTF-8 bytes, as Redis hashes them, whatever the JVM's
	 * default charset. Java 17 in a container without a locale defaults to US-ASCII, where two
	 * keys that differ only in non-ASCII characters encode alike.
	 */
	@Test
	void theWatchdogRenewsNonAsciiKeysInAProcessWhoseDefaultCharsetIsAscii() throws Exception {
		String first;
		String second;
		do {
			String suffix = ":" + UUID.randomUUID();
			first = "charset:Jos\u00e9" + suffix;
			second = "charset:Jos\u00e0" + suffix;
		}
		while (slot(first) == slot(second));
		String nodes = String.join(",",
				cluster.masters().stream().map((master) -> master.host() + ":" + master.port()).toList());
		try (ChildJvm child = ChildJvm.start(List.of("-Dfile.encoding=US-ASCII"), ClusterLockHolderMain.class, nodes,
				"1500", "6000", hex(first), hex(second))) {
			assertThat(child.awaitLine("CHARSET ", 30, TimeUnit.SECONDS)).as(child.output())
				.isEqualTo("CHARSET US-ASCII");
			assertThat(child.awaitLine("ACQUIRED ", 30, TimeUnit.SECONDS)).as(child.output()).isEqualTo("ACQUIRED 2");
			// Four leases later, only renewals keep them.
			assertThat(child.awaitLine("VALID ", 30, TimeUnit.SECONDS)).as(child.output()).isEqualTo("VALID 2");
			assertThat(child.awaitLine("CONFIRMED ", 30, TimeUnit.SECONDS)).as(child.output())
				.isEqualTo("CONFIRMED 2");
		}
	}

	private static int slot(String key) {
		return ClusterSlotHashUtil.calculateSlot(("distlock:{" + key + "}").getBytes(StandardCharsets.UTF_8));
	}

	private static String hex(String key) {
		return "utf8-hex:" + HexFormat.of().formatHex(key.getBytes(StandardCharsets.UTF_8));
	}

	private RedisLockRegistry registry(Duration leaseTime) {
		return this.registries.redis((builder) -> builder.leaseTime(leaseTime));
	}

}

package io.distlock.redlock;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.distlock.core.LockAcquisitionException;
import io.distlock.core.LockLease;
import io.distlock.core.LockListener;
import io.distlock.core.LockLostException;
import io.distlock.core.LockRequest;
import io.distlock.test.redis.RedisServer;
import io.distlock.test.registry.LockRegistries;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * Redlock with nodes that refuse connections (nothing listens on their port), next to real
 * {@code redis-server} processes: with a minority down, acquire, renewal, extend and release
 * work on the nodes that are up; with a majority down nothing is granted and no key is left on
 * the nodes that are up, and the caller gets the failures at once; with every node down the
 * caller gets the store's failure at once, never a grant and never a wait that looks like
 * contention.
 */
@Timeout(60)
class RedlockUnreachableNodesIntegrationTests {

	private static final List<RedisServer> servers = new ArrayList<>();

	private final List<LettuceConnectionFactory> factories = new ArrayList<>();

	@RegisterExtension
	final LockRegistries registries = new LockRegistries();

	@BeforeAll
	static void startTwoNodes() {
		for (int i = 0; i < 2; i++) {
			servers.add(RedisServer.start());
		}
	}

	@AfterAll
	static void stopNodes() {
		servers.forEach(RedisServer::close);
		servers.clear();
	}

	@AfterEach
	void close() {
		this.factories.forEach(LettuceConnectionFactory::destroy);
	}

	@Test
	void everyNodeDownGivesTheStoresFailureAtOnceNeverAGrant() {
		RedlockRegistry registry = registry(List.of(down(), down(), down()), Duration.ofSeconds(2), LockListener.NONE);
		String key = this.registries.randomKey();
		long start = System.nanoTime();
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> registry.acquire(key, Duration.ofSeconds(5)))
			.withMessageStartingWith("Could not acquire lock for key '" + key + "': the lock store failed")
			.havingCause()
			.isInstanceOf(RedlockUnavailableException.class)
			.withMessageStartingWith("No Redlock node answered for key '" + key + "'");
		assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("failed at once, not at the wait time")
			.isLessThan(2_000);
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> registry.obtain(key).tryLock(Duration.ofSeconds(1)));
		assertThat(registry.localKeyCount()).isZero();
	}

	@Test
	void aMajorityOfNodesDownFailsAtOnceNamingTheirFailures() {
		RedlockRegistry registry = registry(List.of(down(), up(0), down()), Duration.ofSeconds(2), LockListener.NONE);
		String key = this.registries.randomKey();
		// A wait far longer than the test's timeout would allow if the failure were waited out.
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> registry.acquire(key, Duration.ofSeconds(90)))
			.withMessageStartingWith("Could not acquire lock for key '" + key + "': the lock store failed")
			.havingCause()
			.isInstanceOf(RedlockUnavailableException.class)
			.withMessageStartingWith("2 of 3 Redlock nodes failed for key '" + key + "', too many for a quorum of 2:")
			.withMessageContaining(" node 1: ")
			.withMessageContaining(" node 3: ");
		await().atMost(Duration.ofSeconds(2))
			.untilAsserted(() -> assertThat(servers.get(0).template().hasKey(lockKey(key))).isFalse());
		assertThat(registry.localKeyCount()).isZero();
	}

	@Test
	void aMinorityOfNodesDownStillAcquiresExtendsAndReleases() {
		List<LockListener.ReleaseOutcome> outcomes = new ArrayList<>();
		RedlockRegistry registry = registry(List.of(up(0), down(), up(1)), Duration.ofSeconds(2), new LockListener() {

			@Override
			public void onReleased(LockLease lease, Duration held, ReleaseOutcome outcome) {
				outcomes.add(outcome);
			}

		});
		String key = this.registries.randomKey();
		LockLease lease = registry
			.acquire(LockRequest.of(key).waitTime(Duration.ofSeconds(2)).leaseTime(Duration.ofSeconds(6)));
		awaitOnBothNodesUp(key);
		assertThat(lease.extend(Duration.ofSeconds(18))).isTrue();
		for (RedisServer server : servers) {
			assertThat(server.template().getExpire(lockKey(key), TimeUnit.MILLISECONDS)).isBetween(17_000L, 18_000L);
		}
		lease.release();
		for (RedisServer server : servers) {
			assertThat(server.template().hasKey(lockKey(key))).isFalse();
		}
		assertThat(outcomes).containsExactly(LockListener.ReleaseOutcome.RELEASED);
	}

	@Test
	void aMinorityOfNodesDownKeepsAWatchdogLeaseRenewed() {
		AtomicInteger renewals = new AtomicInteger();
		RedlockRegistry registry = registry(List.of(down(), up(0), up(1)), Duration.ofMillis(300), new LockListener() {

			@Override
			public void onRenewed(LockLease lease) {
				renewals.incrementAndGet();
			}

		});
		String key = this.registries.randomKey();
		AtomicInteger lost = new AtomicInteger();
		try (LockLease lease = registry.acquire(key, Duration.ofSeconds(2))) {
			lease.onLost((ex) -> lost.incrementAndGet());
			await().atMost(Duration.ofSeconds(5)).until(() -> renewals.get() >= 5);
			assertThat(lease.isValid()).isTrue();
		}
		assertThat(lost).hasValue(0);
		for (RedisServer server : servers) {
			assertThat(server.template().hasKey(lockKey(key))).isFalse();
		}
	}

	@Test
	void aGrantAQuorumRenewsIsRenewedThoughOtherGrantsOfItsBatchAreUndecided() throws Exception {
		// Node 3 refuses connections; on node 2 another owner holds the keys of two grants (they
		// expired there during a stall, say), taken just before and just after the one under
		// test. Each of them is then held by one node, the third unknown: undecided, retried
		// until its deadline, one of them due for renewal whenever the grant under test is, until
		// after its deadline. That grant is renewed by nodes 1 and 2 each time, and the watchdog
		// renews the due grants in one batch.
		List<String> renewalFailed = new CopyOnWriteArrayList<>();
		RedlockRegistry registry = registry(List.of(up(0), up(1), down()), Duration.ofSeconds(1), new LockListener() {

			@Override
			public void onRenewalFailed(LockLease lease, Throwable failure) {
				renewalFailed.add(lease.key());
			}

		});
		String before = this.registries.randomKey();
		String key = this.registries.randomKey();
		String after = this.registries.randomKey();
		LockLease undecidedBefore = registry.acquire(before, Duration.ofSeconds(2));
		LockLease lease = registry.acquire(key, Duration.ofSeconds(2));
		LockLease undecidedAfter = registry.acquire(after, Duration.ofSeconds(2));
		AtomicInteger lost = new AtomicInteger();
		lease.onLost((ex) -> lost.incrementAndGet());
		CompletableFuture<Void> afterLost = new CompletableFuture<>();
		undecidedAfter.onLost((ex) -> afterLost.complete(null));
		servers.get(1).template().opsForValue().set(lockKey(before), "foreign");
		servers.get(1).template().opsForValue().set(lockKey(after), "foreign");
		// The undecided grants are renewed by no quorum until their validity deadlines, the last
		// one's after the deadline of the grant under test.
		afterLost.get(20, TimeUnit.SECONDS);
		assertThat(undecidedBefore.isValid()).isFalse();
		assertThat(lost).as("losses of the grant a quorum renews").hasValue(0);
		assertThat(lease.isValid()).isTrue();
		assertThat(renewalFailed).as("renewals reported failed").doesNotContain(key).contains(before, after);
		lease.release();
		assertThat(catchThrowable(undecidedBefore::release)).isInstanceOf(LockLostException.class);
		assertThat(catchThrowable(undecidedAfter::release)).isInstanceOf(LockLostException.class);
	}

	@Test
	void aMajorityOfNodesDownGrantsNothingAndLeavesNoKeyOnTheNodeUp() {
		// A lease far longer than the test: a key left behind would not expire by itself meanwhile.
		RedlockRegistry registry = registry(List.of(down(), up(0), down()), Duration.ofSeconds(30), LockListener.NONE);
		String key = this.registries.randomKey();
		boolean acquired;
		try {
			acquired = registry.tryAcquire(key, Duration.ofMillis(500)).isPresent();
		}
		catch (LockAcquisitionException ex) {
			acquired = false;
		}
		assertThat(acquired).isFalse();
		// Each attempt's grant on the node that is up is given back in the background.
		await().atMost(Duration.ofSeconds(2))
			.untilAsserted(() -> assertThat(servers.get(0).template().hasKey(lockKey(key))).isFalse());
		assertThat(registry.localKeyCount()).isZero();
	}

	private RedlockRegistry registry(List<LettuceConnectionFactory> nodes, Duration leaseTime,
			LockListener listener) {
		return this.registries.add(RedlockRegistry.builder(nodes)
			.perNodeTimeout(Duration.ofMillis(200))
			.leaseTime(leaseTime)
			.listener(listener)
			.build());
	}

	private LettuceConnectionFactory up(int index) {
		LettuceConnectionFactory factory = servers.get(index).newConnectionFactory(Duration.ofSeconds(2));
		this.factories.add(factory);
		return factory;
	}

	/**
	 * Return a connection factory to a port nothing listens on: every connection is refused.
	 */
	private LettuceConnectionFactory down() {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", freePort()),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(2)).build());
		factory.afterPropertiesSet();
		factory.start();
		this.factories.add(factory);
		return factory;
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static void awaitOnBothNodesUp(String key) {
		await().atMost(Duration.ofSeconds(2))
			.until(() -> servers.stream().allMatch((server) -> Boolean.TRUE.equals(server.template().hasKey(lockKey(key)))));
	}

	private static String lockKey(String key) {
		return "distlock:{" + key + "}";
	}

}

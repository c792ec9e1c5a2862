package io.distlock.redlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.distlock.core.LockConfigurationException;
import io.distlock.core.LockLease;
import io.distlock.core.LockLostException;
import io.distlock.core.LockRequest;
import io.distlock.test.redis.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The delayed restart of the Redlock analysis, enforced by the nodes: with a restart delay, a
 * node that restarted empty counts towards no quorum until the delay has passed, so a second
 * client cannot form a quorum with it while the first still holds the lock through the others
 * (T27 (a) without its hole). Real {@code kill -9} and empty restarts of real servers.
 */
@Timeout(120)
class RedlockRestartDelayIntegrationTests {

	private static final Duration RESTART_DELAY = Duration.ofSeconds(6);

	private static final Duration LEASE = Duration.ofSeconds(5);

	private static final String EPOCH = "distlock:node-epoch";

	private final List<RedisServer> nodes = new ArrayList<>();

	private final List<LettuceConnectionFactory> factories = new ArrayList<>();

	private final List<RedlockRegistry> registries = new ArrayList<>();

	@BeforeEach
	void startThreeNewNodes() {
		for (int i = 0; i < 3; i++) {
			RedisServer node = RedisServer.start();
			this.nodes.add(node);
			this.factories.add(node.newConnectionFactory(Duration.ofMillis(500)));
		}
	}

	@AfterEach
	void stop() {
		this.registries.forEach(RedlockRegistry::close);
		this.factories.forEach(LettuceConnectionFactory::destroy);
		this.nodes.forEach(RedisServer::close);
	}

	@Test
	void aNewDeploymentVotesAtOnce() {
		RedlockRegistry registry = registry(RESTART_DELAY);
		for (RedisServer node : this.nodes) {
			assertThat(node.template().opsForValue().get(EPOCH)).isEqualTo("0");
		}
		assertThat(registry.tryAcquire("new", Duration.ZERO)).isPresent();
	}

	@Test
	void aNodeThatRestartedEmptyCountsTowardsNoQuorumWhileTheFirstHolderStillHolds() {
		String key = "stock";
		LockLease first = holdOnNodesZeroAndOne(registry(RESTART_DELAY), key);
		restartEmpty(this.nodes.get(1));
		// A second process, started after the loss: its startup must not take node 1 for new.
		RedlockRegistry second = registry(RESTART_DELAY);
		assertThat(this.nodes.get(1).template().hasKey(EPOCH)).isFalse();
		Optional<LockLease> overlap = second.tryAcquire(key, Duration.ZERO);
		assertThat(first.isValid()).isTrue();
		assertThat(overlap).as("a quorum of node 1 (restarted empty) and node 2 while the first holder holds")
			.isEmpty();
		// Its key is on node 0 alone now, short of a quorum: the release says so.
		assertThatExceptionOfType(LockLostException.class).isThrownBy(first::release);
	}

	/**
	 * The negative control of the test above: without a restart delay, the same loss lets a
	 * second holder in while the first still holds, so the scenario does reach the hole.
	 */
	@Test
	void withoutARestartDelayTheSameLossLetsASecondHolderIn() {
		String key = "stock";
		LockLease first = holdOnNodesZeroAndOne(registry(null), key);
		restartEmpty(this.nodes.get(1));
		RedlockRegistry second = registry(null);
		Optional<LockLease> overlap = second.tryAcquire(key, Duration.ZERO);
		assertThat(overlap).isPresent();
		assertThat(first.isValid()).isTrue();
		overlap.get().release();
	}

	@Test
	void theNodeVotesAgainOnceTheDelayHasPassedAfterItsFirstAcquisition() {
		String key = "after-delay";
		RedlockRegistry first = registry(RESTART_DELAY);
		restartEmpty(this.nodes.get(1));
		// Node 0 is taken by someone else for longer than the test: a grant needs nodes 1 and 2.
		this.nodes.get(0).template().opsForValue().set("distlock:{" + key + "}", "someone-else", Duration.ofMinutes(1));
		long firstContact = System.currentTimeMillis();
		assertThat(first.tryAcquire(key, Duration.ZERO)).isEmpty();
		long votesFrom = Long.parseLong(this.nodes.get(1).template().opsForValue().get(EPOCH));
		assertThat(votesFrom).isGreaterThanOrEqualTo(firstContact + RESTART_DELAY.toMillis() - 5);
		try (LockLease lease = first.acquire(key, RESTART_DELAY.multipliedBy(3))) {
			assertThat(System.currentTimeMillis()).isGreaterThanOrEqualTo(votesFrom);
			assertThat(lease.isValid()).isTrue();
		}
	}

	@Test
	void aLeaseLongerThanTheDelayIsRefusedAndNothingIsTaken() {
		RedlockRegistry registry = registry(RESTART_DELAY);
		assertThat(registry.maxLeaseTime()).contains(RESTART_DELAY);
		Throwable refused = catchThrowable(
				() -> registry.tryAcquire(LockRequest.of("long").waitTime(Duration.ZERO).leaseTime(Duration.ofSeconds(7))));
		assertThat(refused).isNotNull();
		assertThat(rootOrSelf(refused)).isInstanceOf(LockConfigurationException.class)
			.hasMessageContaining("Lease time 'PT7S' for key 'long' is longer than the Redlock restart delay 'PT6S'");
		for (RedisServer node : this.nodes) {
			assertThat(node.template().hasKey("distlock:{long}")).isFalse();
		}
		try (LockLease lease = registry.acquire(LockRequest.of("long").waitTime(Duration.ZERO).leaseTime(LEASE))) {
			Throwable extended = catchThrowable(() -> lease.extend(Duration.ofSeconds(7)));
			assertThat(rootOrSelf(extended)).isInstanceOf(LockConfigurationException.class)
				.hasMessageContaining("is longer than the Redlock restart delay");
			assertThat(lease.isValid()).isTrue();
		}
	}

	@Test
	void aDelayShorterThanTheLeaseTimeIsRefusedWhenBuilt() {
		assertThatExceptionOfType(LockConfigurationException.class)
			.isThrownBy(() -> RedlockRegistry.builder(new ArrayList<>(this.factories))
				.leaseTime(Duration.ofSeconds(30))
				.restartDelay(Duration.ofSeconds(10))
				.build())
			.withMessage("restartDelay 'PT10S' must be at least the leaseTime 'PT30S': a node that lost a lock could "
					+ "vote again while it is held");
	}

	/**
	 * Hold the key through nodes 0 and 1 only: node 2 is taken by someone else's key while the
	 * first holder acquires, and freed after.
	 */
	private LockLease holdOnNodesZeroAndOne(RedlockRegistry registry, String key) {
		String lockKey = "distlock:{" + key + "}";
		this.nodes.get(2).template().opsForValue().set(lockKey, "someone-else", Duration.ofMinutes(1));
		LockLease lease = registry.acquire(LockRequest.of(key).waitTime(Duration.ZERO).leaseTime(LEASE));
		this.nodes.get(2).template().delete(lockKey);
		assertThat(this.nodes.get(0).template().hasKey(lockKey)).isTrue();
		assertThat(this.nodes.get(1).template().hasKey(lockKey)).isTrue();
		return lease;
	}

	private static void restartEmpty(RedisServer node) {
		node.kill();
		node.restart();
		assertThat(node.template().keys("*")).isEmpty();
	}

	private RedlockRegistry registry(Duration restartDelay) {
		RedlockRegistry registry = RedlockRegistry.builder(new ArrayList<>(this.factories))
			.leaseTime(LEASE)
			.perNodeTimeout(Duration.ofMillis(200))
			.restartDelay(restartDelay)
			.build();
		this.registries.add(registry);
		return registry;
	}

	private static Throwable rootOrSelf(Throwable failure) {
		Throwable cause = failure;
		while (!(cause instanceof LockConfigurationException) && cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause;
	}

}

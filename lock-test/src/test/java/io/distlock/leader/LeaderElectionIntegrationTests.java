package io.distlock.leader;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.distlock.core.LockRegistry;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.test.redis.RedisServerExtension;
import io.distlock.test.registry.LockRegistries;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Leader election in one JVM on a real Redis: three registries stand for three instances. The
 * detector is {@link LeadershipLog#violations()}, the order in which the instances' listeners
 * heard grants and revocations; its negative control elects two roles into one log.
 */
@Timeout(60)
class LeaderElectionIntegrationTests {

	private static final Duration LEASE = Duration.ofSeconds(1);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockRegistries registries = LockRegistries.on(redis);

	private final LeadershipLog log = new LeadershipLog();

	private final List<LeaderElection> elections = new ArrayList<>();

	private final String role = "role-" + UUID.randomUUID();

	@AfterEach
	void closeElections() {
		this.elections.forEach(LeaderElection::close);
	}

	@Test
	void oneOfThreeLeadsAtATimeWithAGrowingEpochThroughYields() {
		List<LeaderElection> three = List.of(elect("a"), elect("b"), elect("c"));
		for (int change = 1; change <= 6; change++) {
			int grants = change;
			await().atMost(Duration.ofSeconds(10)).until(() -> this.log.grants().size() >= grants);
			leaderOf(three).yieldLeadership();
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> this.log.grants().size() >= 7);
		assertThat(this.log.violations()).isEmpty();
		assertThat(three.stream().filter(LeaderElection::isLeader)).hasSize(1);
		assertThat(this.log.revocations()).extracting(LeadershipLog.Entry::reason).containsOnly(RevocationReason.YIELDED);
		assertThat(this.log.entries()).extracting(LeadershipLog.Entry::thread)
			.allMatch((thread) -> thread.startsWith("distlock-leader-" + this.role + "-events"));
	}

	@Test
	void theDetectorSeesTwoLeadersWhenTwoRolesShareOneLog() {
		// Negative control: two roles are two locks, so their leaders overlap in one log.
		elect("a");
		LeaderElection other = track(LeaderElection.builder(this.registries.redis((b) -> b.leaseTime(LEASE)), "other")
			.key("leader:" + UUID.randomUUID())
			.listener(this.log.listener("b"))
			.build());
		other.start();
		await().atMost(Duration.ofSeconds(10)).until(() -> this.log.grants().size() == 2);
		assertThat(this.log.violations()).isNotEmpty();
	}

	@Test
	void stopHandsTheRoleOverWithinOneSecond() {
		LeaderElection first = elect("a");
		await().atMost(Duration.ofSeconds(10)).until(first::isLeader);
		LeaderElection second = elect("b");
		await().pollDelay(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5)).until(() -> true);
		long stopping = System.nanoTime();
		first.stop();
		await().atMost(Duration.ofSeconds(5)).until(second::isLeader);
		Duration handover = Duration.ofNanos(System.nanoTime() - stopping);
		assertThat(handover).isLessThan(Duration.ofSeconds(1));
		assertThat(this.log.violations()).isEmpty();
		assertThat(this.log.revocations()).extracting(LeadershipLog.Entry::reason).containsExactly(RevocationReason.STOPPED);
	}

	@Test
	void aStoppedElectionStartsAgainAsAContextRestartDoes() {
		LeaderElection election = elect("a");
		await().atMost(Duration.ofSeconds(10)).until(election::isLeader);
		election.stop();
		assertThat(election.isLeader()).isFalse();
		election.start();
		await().atMost(Duration.ofSeconds(10)).until(election::isLeader);
		assertThat(this.log.grants()).hasSize(2);
		assertThat(this.log.violations()).isEmpty();
	}

	@Test
	void aYieldReleasesTheRoleOnlyAfterTheCallRunningAsLeaderReturns() throws Exception {
		LeaderElection first = elect("a");
		await().atMost(Duration.ofSeconds(10)).until(first::isLeader);
		LeaderElection second = elect("b");
		CountDownLatch running = new CountDownLatch(1);
		CountDownLatch finish = new CountDownLatch(1);
		List<String> order = new CopyOnWriteArrayList<>();
		Future<Boolean> call = this.registries.executor().submit(() -> first.runIfLeader((term) -> {
			running.countDown();
			try {
				finish.await();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			order.add("call of epoch " + term.epoch() + " returned");
		}));
		assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
		first.yieldLeadership();
		await().atMost(Duration.ofSeconds(5)).until(() -> !this.log.revocations().isEmpty());
		assertThat(first.runIfLeader((term) -> order.add("a second call"))).as("refused once revoked").isFalse();
		Thread.sleep(300);
		order.add("b leads: " + second.isLeader());
		finish.countDown();
		assertThat(call.get(10, TimeUnit.SECONDS)).isTrue();
		await().atMost(Duration.ofSeconds(5)).until(second::isLeader);
		assertThat(order).containsExactly("b leads: false", "call of epoch " + this.log.grants().get(0).epoch() + " returned");
		assertThat(this.log.violations()).isEmpty();
	}

	@Test
	void aGrantListenerThatThrowsYieldsTheRoleAndEveryListenerHearsTheRevocation() {
		LeaderElection failing = track(builder("a").listener(new LeadershipListener() {

			@Override
			public void granted(Leadership leadership) {
				throw new IllegalStateException("cannot start the role's work");
			}

		}).build());
		failing.start();
		await().atMost(Duration.ofSeconds(10)).until(() -> !this.log.revocations().isEmpty());
		elect("b");
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.log.grants().stream().anyMatch((grant) -> grant.instance().equals("b")));
		assertThat(this.log.revocations().get(0).reason()).isEqualTo(RevocationReason.GRANT_FAILED);
		assertThat(this.log.revocations().get(0).instance()).isEqualTo("a");
		assertThat(this.log.violations()).isEmpty();
	}

	@Test
	void aLeaderWhoseRenewalsStopStepsDownBeforeItsLeaseExpires() {
		LockRegistry registry = this.registries
			.add(RedisLockRegistry.builder(redis.newConnectionFactory(Duration.ofMillis(200))).leaseTime(LEASE).build());
		LeaderElection leader = track(LeaderElection.builder(registry, this.role).listener(this.log.listener("a")).build());
		leader.start();
		await().atMost(Duration.ofSeconds(10)).until(leader::isLeader);
		redis.server().pause();
		try {
			await().atMost(Duration.ofSeconds(5)).until(() -> !this.log.revocations().isEmpty());
		}
		finally {
			redis.server().resume();
		}
		LeadershipLog.Entry revoked = this.log.revocations().get(0);
		assertThat(revoked.reason()).isEqualTo(RevocationReason.RENEW_DEADLINE);
		assertThat(revoked.remaining()).as("validity left when it stepped down").isPositive();
	}

	@Test
	void aStopWhoseReleaseCannotReachRedisStillRevokesAndTheLockExpiresToTheNextLeader() {
		// Spring Integration's PR #2421: leadership must be given up even when the unlock fails.
		LockRegistry registry = this.registries
			.add(RedisLockRegistry.builder(redis.newConnectionFactory(Duration.ofMillis(200))).leaseTime(LEASE).build());
		LeaderElection first = track(LeaderElection.builder(registry, this.role).listener(this.log.listener("a")).build());
		first.start();
		await().atMost(Duration.ofSeconds(10)).until(first::isLeader);
		LeaderElection second = elect("b");
		redis.server().pause();
		try {
			first.stop();
			assertThat(first.isLeader()).isFalse();
			assertThat(this.log.revocations()).singleElement().satisfies((revoked) -> {
				assertThat(revoked.instance()).isEqualTo("a");
				assertThat(revoked.reason()).isIn(RevocationReason.STOPPED, RevocationReason.RENEW_DEADLINE);
			});
		}
		finally {
			redis.server().resume();
		}
		await().atMost(Duration.ofSeconds(10)).until(second::isLeader);
		assertThat(this.log.violations()).isEmpty();
	}

	@Test
	void aLeaderWhoseLockIsDeletedIsRevokedAndAnotherTakesOverWithALargerEpoch() {
		LeaderElection first = elect("a");
		await().atMost(Duration.ofSeconds(10)).until(first::isLeader);
		elect("b");
		// An operator's DEL breaks exclusion until the leader's next renewal finds the key gone:
		// the other instance may be granted first, which is what the epoch is for.
		redis.server().command("DEL", "distlock:{" + first.key() + "}");
		await().atMost(Duration.ofSeconds(10))
			.until(() -> !this.log.revocations().isEmpty() && this.log.grants().size() >= 2);
		assertThat(this.log.revocations().get(0).reason()).isEqualTo(RevocationReason.LOST);
		assertThat(this.log.grants().get(1).instance()).isEqualTo("b");
		assertThat(this.log.grants().get(1).epoch()).isGreaterThan(this.log.grants().get(0).epoch());
		assertThat(first.isLeader()).isFalse();
	}

	private LeaderElection leaderOf(List<LeaderElection> candidates) {
		return candidates.stream().filter(LeaderElection::isLeader).findFirst().orElseThrow();
	}

	private LeaderElection elect(String instance) {
		RedisLockRegistry registry = this.registries.redis((b) -> b.leaseTime(LEASE));
		// tag::programmatic[]
		LeaderElection election = LeaderElection.builder(registry, this.role)
			.retryInterval(Duration.ofMillis(500))
			.listener(this.log.listener(instance)) // granted(Leadership), revoked(Leadership, reason)
			.build();
		election.start(); // competes on its own thread: distlock-leader-<role>
		// end::programmatic[]
		return track(election);
	}

	private LeaderElectionBuilder builder(String instance) {
		RedisLockRegistry registry = this.registries.redis((b) -> b.leaseTime(LEASE));
		return LeaderElection.builder(registry, this.role)
			.retryInterval(Duration.ofMillis(500))
			.listener(this.log.listener(instance));
	}

	private LeaderElection track(LeaderElection election) {
		this.elections.add(election);
		return election;
	}

}

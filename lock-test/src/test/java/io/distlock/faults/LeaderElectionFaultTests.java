package io.distlock.faults;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.core.StringRedisTemplate;

import io.distlock.test.process.ChildJvm;
import io.distlock.test.process.LeaderCandidateMain;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Leader election across three JVMs ({@link LeaderCandidateMain}) on a lock store that a
 * subclass names: one leader at a time through yields, kills and stops (the detector is the
 * shared record {@link LeaderRecord}, with a negative control of two "leaders" without the
 * lock), a killed leader replaced within lease plus renewal interval, a paused leader replaced
 * and, resumed, revoked before it acts again with its fenced write refused, and a graceful stop
 * handing the role over within a second. The oracle is a Redis of its own.
 */
abstract class LeaderElectionFaultTests {

	@RegisterExtension
	static final RedisServerExtension oracleServer = new RedisServerExtension();

	private final String role = "role-" + UUID.randomUUID();

	private final List<ChildJvm> children = new ArrayList<>();

	/** Return the store's kind for {@link LeaderCandidateMain}: {@code redis} or {@code redlock}. */
	abstract String store();

	/** Return the ports of the lock store's nodes. */
	abstract List<Integer> nodePorts();

	@AfterEach
	void stopChildren() {
		this.children.forEach(ChildJvm::close);
	}

	@Test
	void oneLeaderAtATimeThroughYieldsKillsAndStops() throws Exception {
		Map<String, ChildJvm> jvms = start(1000, "elect", "a", "b", "c");
		ChildJvm leader = awaitNewLeader(jvms, 0);
		awaitRecordOf(0);
		leader.send("YIELD");
		leader = awaitNewLeader(jvms, 1);
		awaitRecordOf(1);
		leader.kill();
		leader = awaitNewLeader(jvms, 2);
		awaitRecordOf(2);
		leader.send("STOP");
		awaitNewLeader(jvms, 3);
		awaitRecordOf(3);
		List<String> record = oracle().opsForList().range("record:" + this.role, 0, -1);
		assertThat(LeaderRecord.interleavings(record)).as("record %s, events %s", record, events()).isEmpty();
	}

	@Test
	void aNegativeControlWithoutTheLockSeesTwoLeaders() throws Exception {
		start(1000, "rogue", "a", "b");
		await().atMost(Duration.ofSeconds(30))
			.until(() -> !LeaderRecord.interleavings(oracle().opsForList().range("record:" + this.role, 0, -1)).isEmpty());
	}

	@Test
	void aKilledLeaderIsReplacedWithinLeasePlusRenewalInterval() throws Exception {
		Duration lease = Duration.ofSeconds(2);
		Map<String, ChildJvm> jvms = start(lease.toMillis(), "elect", "a", "b", "c");
		ChildJvm leader = awaitNewLeader(jvms, 0);
		Thread.sleep(500);
		long killed = System.nanoTime();
		leader.kill();
		awaitNewLeader(jvms, 1);
		Duration takeover = Duration.ofNanos(System.nanoTime() - killed);
		assertThat(takeover).isLessThanOrEqualTo(lease.plus(lease.dividedBy(3)));
		assertThat(LeaderRecord.interleavings(oracle().opsForList().range("record:" + this.role, 0, -1))).isEmpty();
	}

	@Test
	void aPausedLeaderIsReplacedAndResumedIsRevokedBeforeItActsAgainAndItsFencedWriteIsRefused() throws Exception {
		Map<String, ChildJvm> jvms = start(1000, "elect", "a", "b", "c");
		ChildJvm leader = awaitNewLeader(jvms, 0);
		long oldEpoch = epochOfGrant(0);
		awaitRecordOf(0);
		long resumedAt;
		leader.pause();
		try {
			awaitNewLeader(jvms, 1);
			long newEpoch = epochOfGrant(1);
			assertThat(newEpoch).isGreaterThan(oldEpoch);
			// The new leader has written the fenced resource before the old one resumes.
			await().atMost(Duration.ofSeconds(10))
				.until(() -> oracle().opsForList().range("record:" + this.role, -1, -1).get(0).endsWith(" " + newEpoch));
			Thread.sleep(200);
		}
		finally {
			// System.nanoTime() is the host's monotonic clock, the same in every JVM here.
			resumedAt = System.nanoTime();
			leader.resume();
		}
		leader.awaitLine("REVOKED " + oldEpoch, 10, TimeUnit.SECONDS);
		assertThat(leader.awaitLine("STALE ", 10, TimeUnit.SECONDS)).isEqualTo("STALE rejected");
		Thread.sleep(300);
		// Every act of the old term was decided before the pause ended: none after the resume.
		List<Long> decided = leader.output().lines()
			.filter((line) -> line.startsWith("ACT " + oldEpoch + " "))
			.map((line) -> Long.parseLong(line.substring(line.lastIndexOf(' ') + 1)))
			.toList();
		assertThat(decided).isNotEmpty().allMatch((nanos) -> nanos < resumedAt);
	}

	@Test
	void aGracefulStopHandsTheRoleOverWithinOneSecond() throws Exception {
		Map<String, ChildJvm> jvms = start(5000, "elect", "a", "b", "c");
		ChildJvm leader = awaitNewLeader(jvms, 0);
		Thread.sleep(1000);
		long stopping = System.nanoTime();
		leader.send("STOP");
		awaitNewLeader(jvms, 1);
		Duration handover = Duration.ofNanos(System.nanoTime() - stopping);
		assertThat(handover).isLessThan(Duration.ofSeconds(1));
		assertThat(leader.waitForExit(10, TimeUnit.SECONDS)).isZero();
	}

	private Map<String, ChildJvm> start(long leaseMillis, String mode, String... instances) throws IOException,
			InterruptedException {
		String ports = nodePorts().stream().map(String::valueOf).collect(Collectors.joining(","));
		Map<String, ChildJvm> jvms = new java.util.LinkedHashMap<>();
		for (String instance : instances) {
			ChildJvm jvm = ChildJvm.start(LeaderCandidateMain.class, store(), ports,
					Integer.toString(oracleServer.server().port()), this.role, instance, Long.toString(leaseMillis), mode);
			this.children.add(jvm);
			jvms.put(instance, jvm);
		}
		for (ChildJvm jvm : jvms.values()) {
			jvm.awaitLine("STARTED", 60, TimeUnit.SECONDS);
		}
		return jvms;
	}

	/** Wait for the grant after {@code earlier} grants and return the JVM it went to. */
	private ChildJvm awaitNewLeader(Map<String, ChildJvm> jvms, int earlier) {
		await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(5)).until(() -> grants().size() > earlier);
		String grant = grants().get(earlier);
		return jvms.get(grant.substring(0, grant.indexOf(' ')));
	}

	/** Wait until the record holds entries of the term of the grant at that index. */
	private void awaitRecordOf(int grant) {
		String term = grants().get(grant).replace(" granted ", " ");
		await().atMost(Duration.ofSeconds(10)).until(() -> oracle().opsForList().range("record:" + this.role, 0, -1)
			.stream().filter(term::equals).count() >= 5);
	}

	private List<String> events() {
		return oracle().opsForList().range("events:" + this.role, 0, -1);
	}

	private long epochOfGrant(int index) {
		String grant = grants().get(index);
		return Long.parseLong(grant.substring(grant.lastIndexOf(' ') + 1));
	}

	private List<String> grants() {
		return oracle().opsForList().range("events:" + this.role, 0, -1).stream()
			.filter((event) -> event.contains(" granted "))
			.toList();
	}

	private StringRedisTemplate oracle() {
		return oracleServer.server().template();
	}

}

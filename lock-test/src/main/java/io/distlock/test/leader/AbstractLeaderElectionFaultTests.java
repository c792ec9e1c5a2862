package io.distlock.test.leader;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.core.StringRedisTemplate;

import io.distlock.test.process.ChildJvm;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Leader election across three JVMs on a lock store that a subclass names: one leader at a time
 * through yields, kills and stops (the detector is a shared record that only the leader appends
 * to, with a negative control of two "leaders" without the lock), a killed leader replaced within
 * lease plus renewal interval, a paused leader ({@code SIGSTOP}) replaced and, resumed, revoked
 * before it acts again with its fenced write refused, and a graceful stop handing the role over
 * within a second. The record, the events and the fenced resource live in a Redis of the suite's
 * own (the oracle), written through {@code RedisFencing} whatever the store under test.
 * <p>
 * Each candidate is a JVM whose {@code main} builds a registry on the store under test from its
 * first arguments and hands the rest to {@link LeaderCandidate#run}: {@link LeaderCandidateMain}
 * for distlock's Redis and Redlock registries, or a main of your own:
 *
 * <pre class="code">
 * class MyStoreLeaderElectionFaultTests extends AbstractLeaderElectionFaultTests {
 *
 *     protected Class&lt;?&gt; candidateMainClass() {
 *         return MyStoreCandidateMain.class; // LeaderCandidate.run(rest, (lease) -&gt; new MyLockRegistry(...))
 *     }
 *
 *     protected List&lt;String&gt; storeArguments() {
 *         return List.of(Integer.toString(myStore.port()));
 *     }
 * }
 * </pre>
 *
 * A candidate JVM runs with the classpath of the JVM that runs the tests, so its main class and
 * the store's classes may come from your test classpath. It needs JUnit Jupiter, AssertJ and
 * Awaitility, which {@code distlock-test} brings, and {@code kill} on the {@code PATH}.
 */
@Timeout(120)
public abstract class AbstractLeaderElectionFaultTests {

	@RegisterExtension
	static final RedisServerExtension oracleServer = new RedisServerExtension();

	private final String role = "role-" + UUID.randomUUID();

	private final List<ChildJvm> children = new ArrayList<>();

	/** The index among the grants of the term that acts now (see {@link #awaitActingLeader}). */
	private volatile int acting;

	/**
	 * Return the class whose {@code main} runs a candidate: it reads {@link #storeArguments()}
	 * first and passes the arguments after them to {@link LeaderCandidate#run}.
	 * @return the candidate's main class, on the classpath of this JVM
	 */
	protected abstract Class<?> candidateMainClass();

	/**
	 * Return the arguments that tell {@link #candidateMainClass()} where the store under test is.
	 * @return the store's arguments, such as its kind and its ports
	 */
	protected abstract List<String> storeArguments();

	/**
	 * Kill the candidates that still run.
	 */
	@AfterEach
	public void stopChildren() {
		this.children.forEach(ChildJvm::close);
	}

	@Test
	public void oneLeaderAtATimeThroughYieldsKillsAndStops() throws Exception {
		Map<String, ChildJvm> jvms = start(1000, "elect", "a", "b", "c");
		ChildJvm leader = awaitActingLeader(jvms, 0);
		leader.send("YIELD");
		leader = awaitActingLeader(jvms, this.acting + 1);
		leader.kill();
		leader = awaitActingLeader(jvms, this.acting + 1);
		leader.send("STOP");
		awaitActingLeader(jvms, this.acting + 1);
		List<String> record = oracle().opsForList().range("record:" + this.role, 0, -1);
		assertThat(LeaderRecord.interleavings(record)).as("record %s, events %s", record, events()).isEmpty();
	}

	@Test
	public void aNegativeControlWithoutTheLockSeesTwoLeaders() throws Exception {
		start(1000, "rogue", "a", "b");
		await().atMost(Duration.ofSeconds(30))
			.until(() -> !LeaderRecord.interleavings(oracle().opsForList().range("record:" + this.role, 0, -1)).isEmpty());
	}

	@Test
	public void aKilledLeaderIsReplacedWithinLeasePlusRenewalInterval() throws Exception {
		Duration lease = Duration.ofSeconds(2);
		Map<String, ChildJvm> jvms = start(lease.toMillis(), "elect", "a", "b", "c");
		ChildJvm leader = awaitActingLeader(jvms, 0);
		Thread.sleep(500);
		long killed = System.nanoTime();
		leader.kill();
		awaitNewLeader(jvms, this.acting + 1);
		Duration takeover = Duration.ofNanos(System.nanoTime() - killed);
		System.out.println("T45 " + getClass().getSimpleName() + ": killed leader replaced after "
				+ takeover.toMillis() + " ms (lease " + lease.toMillis() + " ms)");
		assertThat(takeover).isLessThanOrEqualTo(lease.plus(lease.dividedBy(3)));
		assertThat(LeaderRecord.interleavings(oracle().opsForList().range("record:" + this.role, 0, -1))).isEmpty();
	}

	@Test
	public void aPausedLeaderIsReplacedAndResumedIsRevokedBeforeItActsAgainAndItsFencedWriteIsRefused() throws Exception {
		Map<String, ChildJvm> jvms = start(1000, "elect", "a", "b", "c");
		ChildJvm leader = awaitActingLeader(jvms, 0);
		long oldEpoch = epochOfGrant(this.acting);
		long resumedAt;
		leader.pause();
		try {
			awaitNewLeader(jvms, this.acting + 1);
			long newEpoch = epochOfGrant(this.acting + 1);
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
	public void aGracefulStopHandsTheRoleOverWithinOneSecond() throws Exception {
		Map<String, ChildJvm> jvms = start(5000, "elect", "a", "b", "c");
		ChildJvm leader = awaitActingLeader(jvms, 0);
		Thread.sleep(1000);
		long stopping = System.nanoTime();
		leader.send("STOP");
		awaitNewLeader(jvms, this.acting + 1);
		Duration handover = Duration.ofNanos(System.nanoTime() - stopping);
		System.out.println("T45 " + getClass().getSimpleName() + ": graceful stop handed over after "
				+ handover.toMillis() + " ms");
		assertThat(handover).isLessThan(Duration.ofSeconds(1));
		assertThat(leader.waitForExit(10, TimeUnit.SECONDS)).isZero();
	}

	private Map<String, ChildJvm> start(long leaseMillis, String mode, String... instances) throws IOException,
			InterruptedException {
		Map<String, ChildJvm> jvms = new LinkedHashMap<>();
		for (String instance : instances) {
			List<String> arguments = new ArrayList<>(storeArguments());
			arguments.addAll(List.of(Integer.toString(oracleServer.server().port()), this.role, instance,
					Long.toString(leaseMillis), mode));
			ChildJvm jvm = ChildJvm.start(candidateMainClass(), arguments.toArray(String[]::new));
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
	/**
	 * Wait for the grant after {@code earlier} grants, then until the latest grant's term has
	 * acted (written the fenced resource) five times; remember that grant's index in
	 * {@link #acting} and return the JVM it went to. A term may be lost before it acts, on a
	 * machine too busy for its first renewal to come in time (three JVMs start at once, on two
	 * cores, with a lease of one second): the election steps down and is granted again, as it
	 * should, and the test goes on from the term that acts.
	 */
	private ChildJvm awaitActingLeader(Map<String, ChildJvm> jvms, int earlier) {
		awaitNewLeader(jvms, earlier);
		try {
			await().atMost(Duration.ofSeconds(10)).until(() -> {
				List<String> grants = grants();
				String term = grants.get(grants.size() - 1).replace(" granted ", " ");
				this.acting = grants.size() - 1;
				return oracle().opsForList().range("record:" + this.role, 0, -1).stream().filter(term::equals).count() >= 5;
			});
		}
		catch (ConditionTimeoutException ex) {
			StringBuilder outputs = new StringBuilder();
			this.children.forEach((child) -> outputs.append("\n--- a candidate's output:\n").append(child.output()));
			throw new AssertionError("No term since grant " + earlier + " acted 5 times within 10 s; record "
					+ oracle().opsForList().range("record:" + this.role, 0, -1) + ", events " + events() + outputs, ex);
		}
		String grant = grants().get(this.acting);
		return jvms.get(grant.substring(0, grant.indexOf(' ')));
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

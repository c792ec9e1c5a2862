package io.distlock.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.distlock.core.LockLease;
import io.distlock.core.LockLostException;
import io.distlock.core.LockRequest;
import io.distlock.detector.LeaseDeadline;
import io.distlock.engine.RegistrySettings;
import io.distlock.redlock.RedlockRegistry;
import io.distlock.test.network.FaultProxy;
import io.distlock.test.redis.LoopbackConnectionFactories;
import io.distlock.test.redis.RedisServer;
import io.distlock.test.report.FaultReport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.awaitility.Awaitility.await;

/**
 * T27 and T28 of the reliability catalogue: the two documented holes of Redlock, reproduced, and
 * the fenced resource that catches them. Five nodes; two clients, each through its own proxy to
 * every node, so that a test can cut one client off some nodes.
 * <ul>
 * <li>T27: client 1 holds on nodes 0 to 2; node 2 is killed and restarts empty. Restarted at
 * once, it lets client 2 (cut off nodes 0 and 1) form a quorum of nodes 2 to 4 while client 1's
 * grant is still valid: exclusion is broken, as the Redis documentation warns. Restarted only
 * after client 1's lease (the "delayed restart" the documentation asks for), client 2 finds no
 * quorum while the grant is valid, and gets one only after its deadline.</li>
 * <li>T28: Kleppmann's scenario: client 1 is cut off D and E and holds on A, B, C; C's clock jumps
 * forward (stood in for by {@code PEXPIRE 1} on the key); client 2, cut off A and B, holds on C,
 * D, E. Both hold a valid grant at once.</li>
 * </ul>
 * In every reproduction, client 2 writes to the fenced resource first and client 1's write, with
 * its older token, is rejected.
 */
@Tag("fault")
@Timeout(120)
class RedlockDurabilityFaultIntegrationTests {

	private static final Duration FIXED_LEASE = Duration.ofSeconds(3);

	/**
	 * The first client's lease where the test shows a documented hole: long enough that the
	 * second client's quorum (a reconnect to a restarted node, retries past slow answers on a
	 * loaded machine) still forms while the first grant is valid.
	 */
	private static final Duration HOLE_LEASE = Duration.ofSeconds(20);

	private static final Duration PER_NODE_TIMEOUT = Duration.ofMillis(200);

	private final List<RedisServer> nodes = new ArrayList<>();

	private final List<FaultProxy> proxies1 = new ArrayList<>();

	private final List<FaultProxy> proxies2 = new ArrayList<>();

	private final List<LettuceConnectionFactory> factories = new ArrayList<>();

	private Oracle resource;

	private RedlockRegistry client1;

	private RedlockRegistry client2;

	@BeforeEach
	void startFiveNodes() {
		for (int i = 0; i < 5; i++) {
			RedisServer node = RedisServer.start();
			this.nodes.add(node);
			this.proxies1.add(FaultProxy.start(node.host(), node.port()));
			this.proxies2.add(FaultProxy.start(node.host(), node.port()));
		}
		this.client1 = registry(this.proxies1);
		this.client2 = registry(this.proxies2);
		this.resource = new Oracle();
		// Each client waits once while every node answers, so that its release subscription is
		// up before any cut (see firstWaitBehindABlackHoledNodeReturnsWithinItsWaitTime).
		awaitEveryConnectionAnswers();
		subscribe(this.client1, this.client2);
		subscribe(this.client2, this.client1);
	}

	private static void subscribe(RedlockRegistry waiter, RedlockRegistry holder) {
		String key = "warm-up:" + UUID.randomUUID();
		try (LockLease held = holder.acquire(LockRequest.of(key).waitTime(Duration.ofSeconds(2)))) {
			assertThat(waiter.tryAcquire(LockRequest.of(key).waitTime(Duration.ofMillis(100)))).isEmpty();
		}
	}

	@AfterEach
	void stop() {
		this.client1.close();
		this.client2.close();
		this.factories.forEach(LettuceConnectionFactory::destroy);
		this.proxies1.forEach(FaultProxy::close);
		this.proxies2.forEach(FaultProxy::close);
		this.nodes.forEach(RedisServer::close);
		this.resource.close();
	}

	@Test
	void t27ANodeRestartedEmptyAtOnceLetsASecondQuorumFormAndFencingRejectsTheStaleWriter() {
		int runs = 5;
		int reproduced = 0;
		int rejected = 0;
		for (int run = 0; run < runs; run++) {
			String key = "t27-now:" + UUID.randomUUID() + ":run-" + run;
			cut(this.proxies1, 3, 4);
			Hold first = hold(this.client1, key, HOLE_LEASE);
			this.nodes.get(2).kill();
			this.nodes.get(2).restart();
			// Client 2 reconnects to node 2 with Lettuce's backoff, which on a loaded machine can
			// outlast a wait of seconds: let it reconnect first (node 2 is empty all the same).
			awaitAnswers(this.factories.get(this.proxies1.size() + 2));
			cut(this.proxies2, 0, 1);
			Optional<Hold> second = tryHold(this.client2, key, Duration.ofSeconds(5));
			if (second.isPresent()) {
				MutexHistory history = MutexHistory.of(List.of(first.asHold(), second.get().asHold()));
				if (!history.overlaps().isEmpty() && first.lease().isValid()) {
					reproduced++;
				}
				assertThat(this.resource.fencedWrite(key, second.get().lease().fencingToken(), "client 2"))
					.as("client 2's write with the newer token").isTrue();
				boolean accepted = this.resource.fencedWrite(key, first.lease().fencingToken(), "client 1");
				assertThat(accepted).as("client 1's stale write, run " + run).isFalse();
				rejected++;
				second.get().lease().release();
			}
			healAll();
			releaseQuietly(first.lease());
		}
		assertThat(reproduced).as("runs in which two valid grants overlapped (the documented hole)").isPositive();
		assertThat(rejected).as("stale writes rejected by the fenced resource").isEqualTo(reproduced);
		FaultReport.row("T27 (a)", "Redlock N = 5: client 1 holds on nodes 0-2; node 2 killed and restarted empty at "
				+ "once; client 2 cut off nodes 0 and 1",
				"client 2 forms a quorum on nodes 2-4 while client 1's grant is valid (documented hole); the fenced "
						+ "resource rejects client 1",
				reproduced + "/" + runs + " overlaps of valid grants; " + rejected + "/" + reproduced + " stale writes rejected");
	}

	@Test
	void t27ADelayedRestartKeepsTheSecondClientOutUntilTheFirstGrantsDeadline() {
		int runs = 3;
		int refusedWhileValid = 0;
		for (int run = 0; run < runs; run++) {
			String key = "t27-delayed:" + UUID.randomUUID();
			cut(this.proxies1, 3, 4);
			Hold first = hold(this.client1, key);
			long firstDeadline = first.validUntil();
			this.nodes.get(2).kill();
			cut(this.proxies2, 0, 1);
			Optional<Hold> early = tryHold(this.client2, key, Duration.ZERO);
			assertThat(early).as("client 2 with node 2 down and nodes 0, 1 cut off").isEmpty();
			if (first.lease().isValid()) {
				refusedWhileValid++;
			}
			// Restart only after the first grant's lease, plus drift, plus 100 ms: its deadline
			// already leaves out the drift margin once, so wait for twice that margin past it.
			long restartAfter = firstDeadline + 2 * RegistrySettings.driftMargin(FIXED_LEASE).toNanos()
					+ Duration.ofMillis(100).toNanos();
			await().atMost(FIXED_LEASE.plusSeconds(1)).until(() -> System.nanoTime() - restartAfter > 0);
			this.nodes.get(2).restart();
			Hold second = tryHold(this.client2, key, Duration.ofSeconds(3)).orElseThrow();
			MutexHistory history = MutexHistory.of(List.of(first.asHold(), second.asHold()));
			assertThat(history.overlaps()).as("valid grants that overlap after a delayed restart").isEmpty();
			assertThat(history.tokenDecreases()).isEmpty();
			second.lease().release();
			healAll();
			releaseQuietly(first.lease());
		}
		FaultReport.row("T27 (b)", "the same with node 2 restarted only after the lease + drift + 100 ms (delayed "
				+ "restart)", "no second quorum while the first grant is valid",
				"0/" + runs + " overlaps; client 2 refused while client 1 was valid in " + refusedWhileValid + "/" + runs
						+ ", granted after its deadline in " + runs + "/" + runs);
	}

	@Test
	void t28KleppmannsClockJumpOnCLetsTwoClientsHoldAndFencingRejectsTheFirst() {
		int runs = 10;
		int reproduced = 0;
		int rejected = 0;
		int toldAtRelease = 0;
		for (int run = 0; run < runs; run++) {
			String key = "t28:" + UUID.randomUUID();
			// Client 1 cannot reach D and E; client 2 cannot reach A and B.
			cut(this.proxies1, 3, 4);
			cut(this.proxies2, 0, 1);
			Hold first = hold(this.client1, key, HOLE_LEASE);
			// C's clock jumps forward: its copy of the key expires early.
			this.nodes.get(2).command("PEXPIRE", "distlock:{" + key + "}", "1");
			await().atMost(Duration.ofSeconds(2))
				.until(() -> !Boolean.TRUE.equals(this.nodes.get(2).template().hasKey("distlock:{" + key + "}")));
			Hold second = tryHold(this.client2, key, Duration.ofSeconds(2)).orElseThrow(
					() -> new AssertionError("client 2 found no quorum on C, D, E"));
			MutexHistory history = MutexHistory.of(List.of(first.asHold(), second.asHold()));
			if (!history.overlaps().isEmpty() && first.lease().isValid()) {
				reproduced++;
			}
			assertThat(this.resource.fencedWrite(key, second.lease().fencingToken(), "client 2")).isTrue();
			if (!this.resource.fencedWrite(key, first.lease().fencingToken(), "client 1")) {
				rejected++;
			}
			second.lease().release();
			healAll();
			toldAtRelease += releaseQuietly(first.lease());
		}
		assertThat(reproduced).as("runs with two valid grants at once (documented)").isEqualTo(runs);
		assertThat(rejected).as("client 1's writes rejected by the fenced resource").isEqualTo(runs);
		FaultReport.row("T28", "Kleppmann: Redlock N = 5, client 1 cut off D, E; client 2 cut off A, B; PEXPIRE 1 on C "
				+ "(a forward clock jump)", "both clients hold a valid grant (documented hole); the fenced resource "
						+ "rejects client 1",
				reproduced + "/" + runs + " reproduced; " + rejected + "/" + runs + " stale writes rejected; client 1 told "
						+ "of the loss by its release in " + toldAtRelease + "/" + runs);
	}

	/**
	 * P4 on Redlock: the first acquisition that has to wait starts the release subscription, and
	 * does so on the caller's thread, blocking until every node's pub/sub connection is made; a
	 * node that accepts TCP but never answers (a black hole) holds the caller for the driver's
	 * connect timeout (5 s here), past its wait time. Found by T27 and fixed: the subscription now
	 * starts on a thread of its own. The fault tests above still warm it up to test what they are
	 * about.
	 */
	@Test
	void firstWaitBehindABlackHoledNodeReturnsWithinItsWaitTime() {
		RedlockRegistry fresh = registry(this.proxies2);
		try {
			String key = "p4:" + UUID.randomUUID();
			try (LockLease held = this.client1.acquire(LockRequest.of(key).waitTime(Duration.ofSeconds(2)))) {
				cut(this.proxies2, 4);
				assertThat(tryHold(fresh, key, Duration.ofMillis(500))).isEmpty();
			}
		}
		finally {
			healAll();
			fresh.close();
		}
	}

	private Hold hold(RedlockRegistry registry, String key) {
		return hold(registry, key, FIXED_LEASE);
	}

	private Hold hold(RedlockRegistry registry, String key, Duration leaseTime) {
		return tryHold(registry, key, Duration.ofSeconds(2), leaseTime)
			.orElseThrow(() -> new AssertionError("client 1 found no quorum for '" + key + "'"));
	}

	private Optional<Hold> tryHold(RedlockRegistry registry, String key, Duration waitTime) {
		return tryHold(registry, key, waitTime, FIXED_LEASE);
	}

	private Optional<Hold> tryHold(RedlockRegistry registry, String key, Duration waitTime, Duration leaseTime) {
		// P4: a wait time bounds the call; a hang here fails with this message, not the class timeout.
		Optional<LockLease> lease = assertTimeoutPreemptively(waitTime.plusSeconds(2),
				() -> registry
					.tryAcquire(LockRequest.of(key).waitTime(waitTime).leaseTime(leaseTime).ownedByThread(false)),
				() -> "tryAcquire('" + key + "', waitTime " + waitTime + ") on Redlock did not return within the wait "
						+ "time + 2 s");
		return lease.map((granted) -> new Hold(System.nanoTime(), LeaseDeadline.of(granted), granted));
	}

	private static void cut(List<FaultProxy> proxies, int... nodes) {
		for (int node : nodes) {
			proxies.get(node).mode(FaultProxy.Mode.BLACKHOLE);
		}
	}

	/**
	 * End every cut with a reset, so that requests held back by a cut are lost rather than
	 * delivered late into the next run.
	 */
	private void healAll() {
		for (FaultProxy proxy : this.proxies1) {
			proxy.mode(FaultProxy.Mode.RESET);
			proxy.mode(FaultProxy.Mode.PASS);
		}
		for (FaultProxy proxy : this.proxies2) {
			proxy.mode(FaultProxy.Mode.RESET);
			proxy.mode(FaultProxy.Mode.PASS);
		}
		for (RedisServer node : this.nodes) {
			if (!node.isRunning()) {
				node.restart();
			}
		}
		awaitEveryConnectionAnswers();
	}

	/**
	 * Wait until every client's connection to every node answers again. A reset (and a node
	 * restart) leaves Lettuce reconnecting with a growing back-off; a run that started before
	 * that ended would see a node time out at the 200 ms per-node timeout and miss its quorum
	 * for a reason that is not the one under test (seen once in CI, in T27 (a)).
	 */
	private void awaitEveryConnectionAnswers() {
		this.factories.forEach(RedlockDurabilityFaultIntegrationTests::awaitAnswers);
	}

	private static void awaitAnswers(LettuceConnectionFactory factory) {
		await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
			try (RedisConnection connection = factory.getConnection()) {
				return "PONG".equals(connection.ping());
			}
		});
	}

	/**
	 * Release client 1's grant if it still believes it holds it. A release that finds no quorum
	 * holding the grant any more (the key expired early on C, or node 2 came back empty) tells
	 * the holder with {@link LockLostException}: that is the loss signal, counted.
	 */
	private int releaseQuietly(LockLease lease) {
		if (!lease.isValid()) {
			return 0;
		}
		try {
			lease.release();
			return 0;
		}
		catch (LockLostException ex) {
			return 1;
		}
	}

	private LettuceConnectionFactory factory(FaultProxy proxy) {
		LettuceConnectionFactory factory = LoopbackConnectionFactories.start(proxy.port(), Duration.ofSeconds(5));
		this.factories.add(factory);
		return factory;
	}

	private RedlockRegistry registry(List<FaultProxy> proxies) {
		return RedlockRegistry.builder(proxies.stream().map(this::factory).toList())
			.perNodeTimeout(PER_NODE_TIMEOUT)
			.build();
	}

	/**
	 * A grant as the checker sees it: from its return to its deadline, not yet released.
	 */
	private record Hold(long start, long validUntil, LockLease lease) {

		MutexHistory.Hold asHold() {
			return new MutexHistory.Hold(this.start, Long.MAX_VALUE, this.validUntil, this.lease.fencingToken(),
					this.lease.toString());
		}

	}

}

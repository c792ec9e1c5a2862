package io.distlock.faults;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.distlock.core.LockLease;
import io.distlock.core.LockLostException;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.test.network.FaultProxy;
import io.distlock.test.redis.RedisSentinelGroup;
import io.distlock.test.redis.RedisServer;
import io.distlock.test.report.FaultReport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * T44: a Sentinel-managed master fails over while holders hold watchdog leases, on real
 * processes (a master, a replica, three sentinels with quorum 2) and registries that find the
 * master through the sentinels, as an application's {@code spring.data.redis.sentinel.*} does.
 * <p>
 * What Redis guarantees decides what is asserted. Replication is asynchronous, so a grant the
 * replica had not received when it was promoted is gone: its holder must be told (a loss
 * signal), and a second holder may be granted the key before that signal arrives; that overlap
 * is the documented hole, never silent, and the fence rejects the first holder's write. A grant
 * the replica had received survives on the new master, and its holder keeps renewing it. The
 * history of grants, loss signals and releases is checked by {@link HolderLog}, whose negative
 * control reads the same history as a holder that ignores loss signals would and must find
 * double holders.
 */
@Tag("fault")
@Timeout(180)
class SentinelFailoverFaultIntegrationTests {

	private static final int KEYS = 4;

	private static final Duration LEASE = Duration.ofSeconds(15);

	@RegisterExtension
	static final Oracle oracle = new Oracle();

	@Test
	void t44MasterKilledHoldersWhoseGrantDidNotReachTheReplicaAreToldAndTheOthersKeepTheirLocks() {
		HolderLog log = new HolderLog();
		String run = UUID.randomUUID().toString();
		// Sentinel repoints a replica that follows the proxy after the failover timeout: keep it
		// longer than this scenario.
		try (RedisSentinelGroup group = RedisSentinelGroup.builder()
			.replicas(1)
			.replicationThroughProxy()
			.failoverTimeout(Duration.ofSeconds(60))
			.start()) {
			LettuceConnectionFactory holderConnections = group.newConnectionFactory(Duration.ofSeconds(2));
			LettuceConnectionFactory contenderConnections = group.newConnectionFactory(Duration.ofSeconds(2));
			try (RedisLockRegistry holder = registry(holderConnections);
					RedisLockRegistry contender = registry(contenderConnections)) {
				RedisServer oldMaster = group.master();
				RedisServer replica = group.servers().get(1);
				Map<String, LockLease> replicated = holdReplicated(log, holder, "t44-kill-replicated:" + run, replica);
				group.replicationLink().mode(FaultProxy.Mode.BLACKHOLE);
				Map<String, LockLease> unreplicated = log.hold(holder, "holder", "t44-kill-unreplicated:" + run, KEYS);
				long highestTokenBefore = highestToken(replicated, unreplicated);
				unreplicated.forEach((key, lease) -> assertThat(oracle.fencedWrite(key, lease.fencingToken(), "holder")).isTrue());

				oldMaster.kill();
				group.replicationLink().mode(FaultProxy.Mode.RESET);
				long failoverStarted = System.nanoTime();
				RedisServer promoted = group.awaitNewMaster();
				long failoverMillis = (System.nanoTime() - failoverStarted) / 1_000_000;
				assertThat(unreplicated.keySet()).noneMatch((key) -> hasLock(promoted, key));
				long fencesKept = unreplicated.keySet().stream().filter((key) -> hasFence(promoted, key)).count();

				Map<String, LockLease> successors = log.contend(contender, "contender", unreplicated.keySet(), Duration.ofSeconds(30));
				assertThat(successors).as("the contender is granted every key the new master lacks")
					.hasSize(KEYS);
				await().atMost(LEASE.plusSeconds(10)).until(() -> unreplicated.values().stream().noneMatch(LockLease::isValid));
				for (String key : replicated.keySet()) {
					assertThat(contender.tryAcquire(key, Duration.ZERO)).as("a replicated grant is still held").isEmpty();
				}
				assertThat(replicated.values()).as("replicated grants keep renewing on the new master")
					.allMatch(LockLease::isValid)
					.allMatch(LockLease::confirm);
				assertThat(successors.values()).as("tokens granted after the failover")
					.allMatch((lease) -> lease.fencingToken() > highestTokenBefore);
				long staleRejected = fencedWritesAfterTheFailover(successors, unreplicated);
				assertThat(staleRejected).as("the old holders' writes after the failover, rejected by the fence")
					.isEqualTo(KEYS);

				log.release(replicated, "holder");
				log.release(successors, "contender");
				unreplicated.values()
					.forEach((lease) -> assertThatExceptionOfType(LockLostException.class).isThrownBy(lease::release));

				List<HolderLog.Overlap> overlaps = log.awaitEveryOverlapTold(KEYS, Duration.ofSeconds(5));
				long toldFirst = overlaps.stream().filter(HolderLog.Overlap::toldBeforeTheSuccessor).count();
				FaultReport.row("T44 kill", "Sentinel group (master, replica, 3 sentinels); holders hold; replication "
						+ "held back for half of them; master SIGKILLed",
						"grants the replica lacked are gone: their holders are told (before or after a second client "
								+ "is granted the key), new tokens are higher, the fence rejects the old holders; "
								+ "replicated grants keep renewing; control: ignoring the signal leaves two holders",
						"failover " + failoverMillis + " ms; " + KEYS + "/" + KEYS + " lost grants told (" + toldFirst
								+ " before the second grant); " + KEYS + "/" + KEYS + " replicated kept; "
								+ fencesKept + "/" + KEYS + " fence keys on the new master; " + staleRejected + "/" + KEYS
								+ " stale writes rejected; control: " + log.overlapsIgnoringLossSignals().size()
								+ " silent double holders");
			}
			finally {
				holderConnections.destroy();
				contenderConnections.destroy();
			}
		}
	}

	@Test
	void t44SentinelFailoverCommandKeepsEveryLeaseHeldWhereItsHolderBelievesIt() {
		HolderLog log = new HolderLog();
		String run = UUID.randomUUID().toString();
		try (RedisSentinelGroup group = RedisSentinelGroup.builder().replicas(1).start()) {
			LettuceConnectionFactory holderConnections = group.newConnectionFactory(Duration.ofSeconds(2));
			LettuceConnectionFactory contenderConnections = group.newConnectionFactory(Duration.ofSeconds(2));
			try (RedisLockRegistry holder = registry(holderConnections);
					RedisLockRegistry contender = registry(contenderConnections)) {
				RedisServer oldMaster = group.master();
				RedisServer replica = group.servers().get(1);
				Map<String, LockLease> held = holdReplicated(log, holder, "t44-manual:" + run, replica);
				long highestTokenBefore = highestToken(held, Map.of());

				long failoverStarted = System.nanoTime();
				group.failover();
				RedisServer promoted = group.awaitNewMaster();
				long failoverMillis = (System.nanoTime() - failoverStarted) / 1_000_000;
				// The old master keeps its clients, and takes their writes, until Sentinel turns it
				// into a replica (closing their connections); a contender tries all along.
				await().atMost(Duration.ofSeconds(40))
					.ignoreExceptions()
					.until(() -> "slave".equals(RedisSentinelGroup.replication(oldMaster).getProperty("role")));
				long demotedMillis = (System.nanoTime() - failoverStarted) / 1_000_000;
				Map<String, LockLease> successors = log.contend(contender, "contender", held.keySet(), LEASE.plusSeconds(5));

				// A holder whose key a contender was granted is told at its next renewal at the latest.
				List<HolderLog.Overlap> overlaps = log.awaitEveryOverlapTold(successors.size(), LEASE);
				List<LockLease> kept = held.values().stream().filter(LockLease::isValid).toList();
				assertThat(kept).as("a lease its holder believes valid is held on the new master")
					.allMatch(LockLease::confirm);

				log.release(held.entrySet()
					.stream()
					.filter((entry) -> entry.getValue().isValid())
					.collect(LinkedHashMap::new, (map, entry) -> map.put(entry.getKey(), entry.getValue()), Map::putAll),
						"holder");
				log.release(successors, "contender");
				Map<String, LockLease> after = log.contend(contender, "contender", held.keySet(), Duration.ofSeconds(10));
				assertThat(after).as("every key granted again once its holders are gone").hasSize(KEYS);
				assertThat(after.values()).as("tokens granted after the failover")
					.allMatch((lease) -> lease.fencingToken() > highestTokenBefore);
				log.release(after, "contender");
				FaultReport.row("T44 manual", "the same group; holders hold replicated grants; SENTINEL FAILOVER "
						+ "(the old master stays up until Sentinel makes it a replica)",
						"a lease its holder believes valid is held on the new master; a lease that is not is told; "
								+ "new tokens are higher; control: ignoring the signal leaves two holders",
						"switch " + failoverMillis + " ms, old master a replica after " + demotedMillis + " ms; "
								+ kept.size() + "/" + KEYS + " leases kept, " + (KEYS - kept.size()) + " told lost; "
								+ successors.size() + " second grants (" + overlaps.stream().filter(HolderLog.Overlap::toldBeforeTheSuccessor).count()
								+ " after the holder was told)");
				assertThat(promoted).isNotSameAs(oldMaster);
			}
			finally {
				holderConnections.destroy();
				contenderConnections.destroy();
			}
		}
	}

	@Test
	void t44SentinelFailoverCommandWithALeaseShorterThanTheDemotionGrantsTheKeyAgainAndTheHolderIsToldLate() {
		HolderLog log = new HolderLog();
		String run = UUID.randomUUID().toString();
		Duration shortLease = Duration.ofSeconds(3);
		try (RedisSentinelGroup group = RedisSentinelGroup.builder().replicas(1).start()) {
			LettuceConnectionFactory holderConnections = group.newConnectionFactory(Duration.ofSeconds(2));
			LettuceConnectionFactory contenderConnections = null;
			try (RedisLockRegistry holder = registry(holderConnections, shortLease)) {
				RedisServer oldMaster = group.master();
				RedisServer replica = group.servers().get(1);
				Map<String, LockLease> held = holdReplicated(log, holder, "t44-short:" + run, replica);
				long highestTokenBefore = highestToken(held, Map.of());
				held.forEach((key, lease) -> assertThat(oracle.fencedWrite(key, lease.fencingToken(), "holder")).isTrue());

				long failoverStarted = System.nanoTime();
				group.failover();
				group.awaitNewMaster();
				long failoverMillis = (System.nanoTime() - failoverStarted) / 1_000_000;
				// A client that connects now finds the new master; the holder's connection stays on
				// the old one, renewing there, until Sentinel demotes it and closes its clients.
				contenderConnections = group.newConnectionFactory(Duration.ofSeconds(2));
				try (RedisLockRegistry contender = registry(contenderConnections, shortLease)) {
					Map<String, LockLease> successors = log.contend(contender, "contender", held.keySet(), Duration.ofSeconds(30));
					long grantedMillis = (System.nanoTime() - failoverStarted) / 1_000_000;
					long believedValid = held.values().stream().filter(LockLease::isValid).count();
					assertThat(successors).as("the new master lets the keys expire and grants them again").hasSize(KEYS);
					List<HolderLog.Overlap> overlaps = log.awaitEveryOverlapTold(KEYS, Duration.ofSeconds(40));
					long demotedMillis = (System.nanoTime() - failoverStarted) / 1_000_000;
					assertThat(successors.values()).as("tokens granted after the failover")
						.allMatch((lease) -> lease.fencingToken() > highestTokenBefore);
					long staleRejected = fencedWritesAfterTheFailover(successors, held);
					assertThat(staleRejected).as("the old holders' writes, rejected by the fence").isEqualTo(KEYS);
					log.release(successors, "contender");
					held.values().forEach((lease) -> assertThatExceptionOfType(LockLostException.class).isThrownBy(lease::release));
					long toldFirst = overlaps.stream().filter(HolderLog.Overlap::toldBeforeTheSuccessor).count();
					FaultReport.row("T44 manual, short lease", "the same with a 3 s lease, shorter than the time the old "
							+ "master keeps its clients; a second client connects after the switch",
							"the new master lets the keys expire and grants them again while their holders renew on the "
									+ "old master; each holder is told once its connection moves; the fence rejects it",
							"switch " + failoverMillis + " ms; " + KEYS + "/" + KEYS + " granted again by " + grantedMillis
									+ " ms, " + believedValid + " of them while the holder still believed its lease valid; "
									+ "all told by " + demotedMillis + " ms (" + toldFirst + " before the second grant); "
									+ staleRejected + "/" + KEYS + " stale writes rejected");
				}
			}
			finally {
				holderConnections.destroy();
				if (contenderConnections != null) {
					contenderConnections.destroy();
				}
			}
		}
	}

	/**
	 * Hold {@link #KEYS} keys of the given prefix with the holder, and wait until the replica has
	 * every grant.
	 */
	private static Map<String, LockLease> holdReplicated(HolderLog log, RedisLockRegistry holder, String prefix,
			RedisServer replica) {
		Map<String, LockLease> held = log.hold(holder, "holder", prefix, KEYS);
		await().atMost(Duration.ofSeconds(10))
			.ignoreExceptions()
			.until(() -> held.keySet().stream().allMatch((key) -> hasLock(replica, key)));
		return held;
	}

	/**
	 * Write each key's fenced resource with its successor's token, which must pass, then with the
	 * old holder's: return how many of those writes the fence rejected.
	 */
	private static long fencedWritesAfterTheFailover(Map<String, LockLease> successors, Map<String, LockLease> old) {
		successors.forEach((key, lease) -> assertThat(oracle.fencedWrite(key, lease.fencingToken(), "contender")).isTrue());
		return old.entrySet()
			.stream()
			.filter((entry) -> !oracle.fencedWrite(entry.getKey(), entry.getValue().fencingToken(), "holder"))
			.count();
	}

	private static RedisLockRegistry registry(LettuceConnectionFactory connections) {
		return registry(connections, LEASE);
	}

	private static RedisLockRegistry registry(LettuceConnectionFactory connections, Duration lease) {
		return RedisLockRegistry.builder(connections).leaseTime(lease).build();
	}

	private static long highestToken(Map<String, LockLease> first, Map<String, LockLease> second) {
		return Stream.concat(first.values().stream(), second.values().stream())
			.mapToLong(LockLease::fencingToken)
			.max()
			.orElseThrow();
	}

	private static boolean hasLock(RedisServer server, String key) {
		return Boolean.TRUE.equals(server.template().hasKey("distlock:{" + key + "}"));
	}

	private static boolean hasFence(RedisServer server, String key) {
		return Boolean.TRUE.equals(server.template().hasKey("distlock:{" + key + "}:fence"));
	}

}

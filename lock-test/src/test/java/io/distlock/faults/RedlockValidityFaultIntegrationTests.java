package io.distlock.faults;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.distlock.core.LockLease;
import io.distlock.core.LockRequest;
import io.distlock.detector.LeaseDeadline;
import io.distlock.engine.RegistrySettings;
import io.distlock.redlock.ProxiedRedlockNodes;
import io.distlock.redlock.RedlockRegistry;
import io.distlock.test.redis.RedisServer;
import io.distlock.test.report.FaultReport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * T29: Redlock's validity accounting over three nodes behind proxies that delay every reply. A
 * quorum that answers after half the lease grants only what is left (lease − elapsed − drift); a
 * quorum slower than the lease grants nothing and leaves no key behind.
 */
@Tag("fault")
@Timeout(120)
class RedlockValidityFaultIntegrationTests {

	private static final Duration LEASE = Duration.ofSeconds(1);

	@RegisterExtension
	final ProxiedRedlockNodes nodes = new ProxiedRedlockNodes(3, Duration.ofSeconds(5));

	private RedlockRegistry registry;

	@BeforeEach
	void buildRegistry() {
		// Built (and warmed up) before any latency: only the acquisition is slow.
		this.registry = RedlockRegistry.builder(this.nodes.connectionFactories())
			.leaseTime(LEASE)
			.perNodeTimeout(Duration.ofMillis(800))
			.build();
	}

	@AfterEach
	void stop() {
		this.registry.close();
	}

	@Test
	void t29AQuorumAfterHalfTheLeaseGrantsWhatIsLeft() {
		// One acquisition without latency first: the measured one should not pay for cold code.
		this.registry.acquire(LockRequest.of("t29-warm-up").waitTime(Duration.ZERO)).release();
		Duration oneWay = Duration.ofMillis(250);
		latency(oneWay);
		long start = System.nanoTime();
		LockLease lease = this.registry.acquire(LockRequest.of("t29-half:" + UUID.randomUUID()).waitTime(Duration.ZERO));
		long end = System.nanoTime();
		long deadline = LeaseDeadline.of(lease);
		latency(Duration.ZERO);
		long validity = LEASE.toNanos() - RegistrySettings.driftMargin(LEASE).toNanos();
		// validity = L - elapsed - drift, checked by bounds that follow from the order of events
		// rather than by a tolerance: the requests left after 'start', so the deadline is at least
		// start + L - drift; every proxy held each request and each reply for 250 ms, so the
		// quorum's requests left at least 500 ms before 'end', and the deadline is at most
		// end - 500 ms + L - drift. Counting the validity from the replies lands 500 ms above the
		// upper bound; subtracting the elapsed time twice lands 500 ms below the lower one.
		long lowest = start + validity;
		long highest = end - 2 * oneWay.toNanos() + validity + LeaseDeadline.PRECISION_NANOS;
		assertThat(end - start).as("a quorum round trip of about half the lease")
			.isGreaterThanOrEqualTo(2 * oneWay.toNanos());
		assertThat(deadline).as("deadline no earlier than start + L - drift").isGreaterThanOrEqualTo(lowest);
		assertThat(deadline).as("deadline no later than end - 2 x 250 ms + L - drift").isLessThanOrEqualTo(highest);
		long expected = LEASE.toNanos() - (end - start) - RegistrySettings.driftMargin(LEASE).toNanos();
		long left = deadline - end;
		lease.release();
		FaultReport.row("T29", "Redlock N = 3, every reply delayed so that the quorum takes 0.5 L (lease 1 s)",
				"the grant is valid for L - elapsed - drift", TimeUnit.NANOSECONDS.toMillis(left) + " ms left against "
						+ TimeUnit.NANOSECONDS.toMillis(expected) + " ms expected; asserted between the bounds the send and "
						+ "the 2 x 250 ms delays give (" + TimeUnit.NANOSECONDS.toMillis(lowest - end) + " to "
						+ TimeUnit.NANOSECONDS.toMillis(highest - end) + " ms)");
	}

	@Test
	void t29AQuorumSlowerThanTheLeaseGrantsNothingAndLeavesNoKey() {
		String key = "t29-late:" + UUID.randomUUID();
		latency(Duration.ofMillis(525));
		Optional<LockLease> lease = this.registry.tryAcquire(LockRequest.of(key).waitTime(Duration.ZERO));
		latency(Duration.ZERO);
		assertThat(lease).as("a grant slower than its lease").isEmpty();
		await().atMost(Duration.ofSeconds(5)).untilAsserted(
				() -> assertThat(keysLeft(key)).as("lock keys left on the nodes").isZero());
		FaultReport.row("T29 late", "the same with every reply delayed so that the quorum takes 1.05 L",
				"not acquired; the attempt is given back on every node", "empty; 0 keys left on 3 nodes");
	}

	private void latency(Duration latency) {
		this.nodes.proxies().forEach((proxy) -> proxy.latency(latency));
	}

	private int keysLeft(String key) {
		int left = 0;
		for (RedisServer server : this.nodes.servers()) {
			if (Boolean.TRUE.equals(server.template().hasKey("distlock:{" + key + "}"))) {
				left++;
			}
		}
		return left;
	}

}

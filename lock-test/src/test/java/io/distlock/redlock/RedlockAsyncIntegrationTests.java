package io.distlock.redlock;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.distlock.core.LockLease;
import io.distlock.core.LockRequest;
import io.distlock.test.network.FaultProxy;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Redlock over three real {@code redis-server} processes, each behind a proxy, one of them
 * black-holed: asynchronous acquisitions are decided by the two nodes that answer and park no
 * thread per call, neither for the quorum nor for the silent node (whose requests stay
 * unanswered for the driver's whole command timeout).
 */
@Timeout(120)
class RedlockAsyncIntegrationTests {

	private static final Duration PER_NODE_TIMEOUT = Duration.ofMillis(200);

	/** Far longer than the test: a request to the black-holed node stays open throughout. */
	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(30);

	private static final Duration WAIT_TIME = Duration.ofSeconds(2);

	private static final int CALLS = 300;

	/** The platform threads the acquisitions may add: a timer, a driver thread or two. */
	private static final int MAX_ADDED_THREADS = 4;

	@RegisterExtension
	final ProxiedRedlockNodes nodes = new ProxiedRedlockNodes(3, COMMAND_TIMEOUT);

	private RedlockRegistry registry;

	@BeforeEach
	void buildRegistry() {
		this.registry = RedlockRegistry.builder(this.nodes.connectionFactories())
			.perNodeTimeout(PER_NODE_TIMEOUT)
			.leaseTime(Duration.ofSeconds(20))
			.build();
	}

	@AfterEach
	void stop() {
		this.registry.close();
	}

	@Test
	void concurrentAcquisitionsWithABlackHoledNodeAreGrantedWithoutAThreadPerCall() throws Exception {
		this.nodes.proxies().get(2).mode(FaultProxy.Mode.BLACKHOLE);
		// A first round behind the black hole starts whatever runs once per process or registry
		// (timers, the watchdog), so that the measured round counts only what each call adds.
		List<Attempt> warmUp = acquireConcurrently(10);
		await(warmUp);
		releaseAll(warmUp);

		ThreadMXBean threads = ManagementFactory.getThreadMXBean();
		int before = threads.getThreadCount();
		threads.resetPeakThreadCount();
		List<Attempt> attempts = acquireConcurrently(CALLS);
		await(attempts);
		int peak = threads.getPeakThreadCount();

		long bound = WAIT_TIME.plus(PER_NODE_TIMEOUT).plusMillis(500).toNanos();
		for (Attempt attempt : attempts) {
			assertThat(attempt.lease()).as("'%s' granted by the two nodes that answer", attempt.key())
				.isCompletedWithValueMatching((lease) -> lease.fencingToken() > 0);
			assertThat(attempt.tookNanos()).as("'%s' decided within wait time + per-node timeout + 500 ms", attempt.key())
				.isLessThanOrEqualTo(bound);
		}
		assertThat(peak - before)
			.as("platform threads added while %d acquisitions ran behind a black-holed node (%d before, peak %d)",
					CALLS, before, peak)
			.isLessThanOrEqualTo(MAX_ADDED_THREADS);
		// Each grant is on the two nodes that answer; the silent node never saw the requests.
		for (Attempt attempt : attempts.subList(0, 5)) {
			assertThat(this.nodes.servers().get(0).template().hasKey("distlock:{" + attempt.key() + "}")).isTrue();
			assertThat(this.nodes.servers().get(1).template().hasKey("distlock:{" + attempt.key() + "}")).isTrue();
			assertThat(this.nodes.servers().get(2).template().hasKey("distlock:{" + attempt.key() + "}")).isFalse();
		}
		releaseAll(attempts);
	}

	private List<Attempt> acquireConcurrently(int calls) {
		List<Attempt> attempts = new ArrayList<>(calls);
		for (int i = 0; i < calls; i++) {
			String key = "async:" + UUID.randomUUID();
			long start = System.nanoTime();
			CompletableFuture<Long> end = new CompletableFuture<>();
			CompletableFuture<LockLease> lease = this.registry
				.acquireAsync(LockRequest.of(key).waitTime(WAIT_TIME))
				.toCompletableFuture();
			lease.whenComplete((granted, failure) -> end.complete(System.nanoTime()));
			attempts.add(new Attempt(key, start, lease, end));
		}
		return attempts;
	}

	private static void await(List<Attempt> attempts) throws Exception {
		CompletableFuture.allOf(attempts.stream().map(Attempt::end).toArray(CompletableFuture[]::new))
			.get(WAIT_TIME.toSeconds() + 10, TimeUnit.SECONDS);
	}

	private static void releaseAll(List<Attempt> attempts) throws Exception {
		List<CompletableFuture<Void>> releases = new ArrayList<>();
		for (Attempt attempt : attempts) {
			if (!attempt.lease().isCompletedExceptionally()) {
				releases.add(attempt.lease().join().releaseAsync());
			}
		}
		CompletableFuture.allOf(releases.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
	}

	/**
	 * One asynchronous acquisition: its key, when it was called and when it completed.
	 */
	private record Attempt(String key, long start, CompletableFuture<LockLease> lease, CompletableFuture<Long> end) {

		long tookNanos() {
			return this.end.join() - this.start;
		}

	}

}

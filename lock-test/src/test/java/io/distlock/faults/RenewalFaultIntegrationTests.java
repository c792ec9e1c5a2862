package io.distlock.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.distlock.core.DistLock;
import io.distlock.core.LockLease;
import io.distlock.core.LockListener;
import io.distlock.core.WaitStrategy;
import io.distlock.detector.LeaseDeadline;
import io.distlock.detector.Workers;
import io.distlock.engine.AbstractLockRegistry;
import io.distlock.store.LocalHandoffStore;
import io.distlock.store.LockStore;
import io.distlock.engine.RegistrySettings;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.redis.RedisLockStore;
import io.distlock.store.ForwardingLockStore;
import io.distlock.test.network.FaultProxy;
import io.distlock.test.redis.LoopbackConnectionFactories;
import io.distlock.test.redis.RedisServerExtension;
import io.distlock.test.report.FaultReport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * T10, T12, T13 and T23: no renewal outlives its lock; a partition shorter than the lease heals
 * silently and a longer one is signalled before anybody else acquires; a starved watchdog still
 * signals the loss at the deadline; an early expiry on the server is noticed within one renewal
 * interval.
 */
@Tag("fault")
@Timeout(600)
class RenewalFaultIntegrationTests {

	private static final Duration LEASE_T12 = Duration.ofSeconds(1);

	/**
	 * Below the renewal interval (333 ms), so that a renewal stuck in the partition gives way to
	 * a retry within the lease.
	 */
	private static final Duration PROXIED_COMMAND_TIMEOUT = Duration.ofMillis(100);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@Test
	void t10NoZombieRenewalAfterUnlock() throws Exception {
		RedisLockRegistry registry = RedisLockRegistry.builder(redis.server().connectionFactory())
			.leaseTime(Duration.ofSeconds(1))
			.build();
		String key = "t10:" + UUID.randomUUID();
		AtomicInteger locked = new AtomicInteger();
		Workers.runAll(Executors.newFixedThreadPool(16), 16, (worker) -> {
			DistLock lock = registry.obtain(key);
			for (int i = 0; i < 1_000; i++) {
				if (lock.tryLock()) {
					locked.incrementAndGet();
					lock.unlock();
				}
			}
		});
		Thread.sleep(1_000);
		long scripts = redis.server().scriptCalls();
		Thread.sleep(2_000);
		assertThat(redis.server().scriptCalls()).as("scripts sent in 2 s of quiet").isEqualTo(scripts);
		assertThat(redis.server().template().hasKey("distlock:{" + key + "}")).isFalse();
		assertThat(registry.localKeyCount()).isZero();
		assertThat(registry.heldLocks()).isEmpty();
		registry.close();
		FaultReport.row("T10", "16 threads x 1,000 tryLock/unlock, watchdog on", "renewal stops with the release",
				locked.get() + " grants; 0 scripts in the 2 s after; key absent, registry empty");
	}

	@Test
	void t12APartitionShorterThanTheLeaseHealsSilently() throws Exception {
		try (FaultProxy proxy = FaultProxy.start(redis.server().host(), redis.server().port())) {
			LettuceConnectionFactory throughProxy = LoopbackConnectionFactories.start(proxy.port(), PROXIED_COMMAND_TIMEOUT);
			try (RedisLockRegistry holder = RedisLockRegistry.builder(throughProxy).leaseTime(Duration.ofSeconds(1)).build();
					RedisLockRegistry competitor = new RedisLockRegistry(redis.server().connectionFactory())) {
				String key = "t12-short:" + UUID.randomUUID();
				LockLease lease = holder.acquire(key, Duration.ZERO);
				AtomicInteger lost = new AtomicInteger();
				lease.onLost((ex) -> lost.incrementAndGet());
				Thread.sleep(200);
				proxy.mode(FaultProxy.Mode.BLACKHOLE);
				int competing = 0;
				long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500);
				while (System.nanoTime() < until) {
					assertThat(competitor.tryAcquire(key, Duration.ZERO)).isEmpty();
					competing++;
					Thread.sleep(20);
				}
				proxy.mode(FaultProxy.Mode.PASS);
				Thread.sleep(1_500);
				assertThat(lost).hasValue(0);
				assertThat(lease.isValid()).isTrue();
				assertThat(competitor.tryAcquire(key, Duration.ZERO)).isEmpty();
				lease.release();
				FaultReport.row("T12 short", "holder partitioned 0.5 x lease (1 s)", "no loss, renewals resume",
						"0 losses; competitor 0/" + competing + " successes");
			}
			finally {
				throughProxy.destroy();
			}
		}
	}

	@Test
	void t12APartitionLongerThanTheLeaseIsSignalledBeforeAnybodyElseAcquires() throws Exception {
		int runs = 20;
		// Causal, not a race: the holder's deadline is the send time of its last renewal that
		// Redis applied, plus the lease, minus the drift margin (lease / 100 + 2 ms), and Redis
		// expires the key no earlier than a full lease after applying it. So a competitor can only
		// be granted the key at least lease / 100 after the holder's lease turned invalid (the
		// 2 ms of the margin cover Redis's millisecond expiry). Nothing here depends on when a
		// thread is scheduled: the deadline is read from the lease, not from the callback.
		long driftOnly = (long) (LEASE_T12.toNanos() * RegistrySettings.DEFAULT_DRIFT_FACTOR);
		List<Long> deadlineMargins = new ArrayList<>();
		List<Long> callbackMargins = new ArrayList<>();
		List<MutexHistory.Hold> validityBounded = new ArrayList<>();
		List<MutexHistory.Hold> believed = new ArrayList<>();
		try (FaultProxy proxy = FaultProxy.start(redis.server().host(), redis.server().port())) {
			LettuceConnectionFactory throughProxy = LoopbackConnectionFactories.start(proxy.port(), PROXIED_COMMAND_TIMEOUT);
			try (RedisLockRegistry holder = RedisLockRegistry.builder(throughProxy).leaseTime(LEASE_T12).build();
					RedisLockRegistry competitor = RedisLockRegistry.builder(redis.server().connectionFactory())
						.waitStrategy(WaitStrategy.POLLING)
						.retryInterval(Duration.ofMillis(10))
						.build()) {
				for (int run = 0; run < runs; run++) {
					proxy.mode(FaultProxy.Mode.PASS);
					String key = "t12-long:" + UUID.randomUUID();
					LockLease lease = holder.acquire(key, Duration.ofSeconds(5));
					long holderStart = System.nanoTime();
					CompletableFuture<Long> lostAt = new CompletableFuture<>();
					lease.onLost((ex) -> lostAt.complete(System.nanoTime()));
					Thread.sleep(100 + run * 13 % 300);
					proxy.mode(FaultProxy.Mode.BLACKHOLE);
					// Longer than the command timeout (100 ms): no renewal can succeed from here on.
					Thread.sleep(150);
					long holderDeadline = LeaseDeadline.of(lease);
					long competitorStart;
					try (LockLease taken = competitor.acquire(key, Duration.ofSeconds(5))) {
						competitorStart = System.nanoTime();
						assertThat(lease.isValid()).as("the holder's lease when the competitor has the key").isFalse();
					}
					long competitorEnd = System.nanoTime();
					long holderToldAt = lostAt.get(5, TimeUnit.SECONDS);
					proxy.mode(FaultProxy.Mode.PASS);
					try {
						lease.release();
					}
					catch (RuntimeException expected) {
						// The holder was told; its release says so again.
					}
					long holderEnd = System.nanoTime();
					assertThat(competitorStart - holderDeadline)
						.as("run %d: the competitor's grant comes at least the drift (%d µs) after the holder's deadline",
								run, driftOnly / 1_000)
						.isGreaterThanOrEqualTo(driftOnly);
					assertThat(holderToldAt - holderDeadline).as("the loss callback never runs before the deadline")
						.isGreaterThanOrEqualTo(0);
					deadlineMargins.add(competitorStart - holderDeadline);
					callbackMargins.add(competitorStart - holderToldAt);
					validityBounded.add(new MutexHistory.Hold(holderStart, holderEnd, holderDeadline, run * 2, "holder " + run));
					validityBounded.add(new MutexHistory.Hold(competitorStart, competitorEnd, Long.MAX_VALUE, run * 2 + 1,
							"competitor " + run));
					believed.add(new MutexHistory.Hold(holderStart, holderEnd, Long.MAX_VALUE, run * 2, "holder " + run));
					believed.add(new MutexHistory.Hold(competitorStart, competitorEnd, Long.MAX_VALUE, run * 2 + 1,
							"competitor " + run));
				}
			}
			finally {
				throughProxy.destroy();
			}
		}
		assertThat(MutexHistory.of(validityBounded).overlaps()).as("validity-bounded holds that overlap").isEmpty();
		// Negative control on the same recorded holds: a holder that believed itself holding until
		// it released (the partition healed after the competitor's hold) overlaps in every run.
		assertThat(MutexHistory.of(believed).overlaps()).as("believed holds that overlap").hasSize(runs);
		long callbackFirst = callbackMargins.stream().filter((margin) -> margin > 0).count();
		FaultReport.row("T12 long", "holder partitioned 3 x lease (1 s)",
				"the holder's lease is invalid before a competitor acquires; the LOST callback follows at the deadline",
				runs + "/" + runs + " runs: competitor granted " + millis(min(deadlineMargins)) + " to "
						+ millis(max(deadlineMargins)) + " ms after the holder's deadline (asserted: at least the "
						+ millis(driftOnly) + " ms drift); callback ran before the competitor's grant in " + callbackFirst
						+ "/" + runs + " (not asserted: a thread's schedule); believed holds overlap " + runs + "/" + runs);
	}

	private static long min(List<Long> values) {
		return values.stream().mapToLong(Long::longValue).min().orElse(0);
	}

	private static long max(List<Long> values) {
		return values.stream().mapToLong(Long::longValue).max().orElse(0);
	}

	private static String millis(long nanos) {
		return String.format(Locale.ROOT, "%.1f", nanos / 1e6);
	}

	@Test
	void t13AStarvedWatchdogStillSignalsTheLossAtTheDeadline() throws Exception {
		CountDownLatch unblock = new CountDownLatch(1);
		RedisLockStore redisStore = RedisLockStore.forNode(redis.server().connectionFactory(), "distlock:",
				Duration.ofMinutes(10));
		LockStore blocking = new BlockingRenewals(redisStore, unblock);
		AtomicInteger renewalFailures = new AtomicInteger();
		LockListener listener = new LockListener() {

			@Override
			public void onRenewalFailed(LockLease lease, Throwable failure) {
				renewalFailures.incrementAndGet();
			}

		};
		AbstractLockRegistry registry = new AbstractLockRegistry(blocking, new RegistrySettings(Duration.ofSeconds(1),
				Duration.ofMillis(333), WaitStrategy.PUB_SUB, Duration.ofSeconds(1), listener, "t13")) {
		};
		try {
			LockLease lease = registry.acquire("t13:" + UUID.randomUUID(), Duration.ZERO);
			long acquiredAt = System.nanoTime();
			CompletableFuture<Long> lostAt = new CompletableFuture<>();
			lease.onLost((ex) -> lostAt.complete(System.nanoTime()));
			long detected = TimeUnit.NANOSECONDS.toMillis(lostAt.get(5, TimeUnit.SECONDS) - acquiredAt);
			assertThat(detected).isBetween(900L, 1_200L);
			assertThat(registry.getLossStatistics().lostCount()).isEqualTo(1);
			unblock.countDown();
			LockLease later = registry.acquire("t13-later:" + UUID.randomUUID(), Duration.ZERO);
			Thread.sleep(3_000);
			assertThat(later.isValid()).as("renewed again once the watchdog is free").isTrue();
			later.release();
			FaultReport.row("T13", "renewal I/O blocked for longer than the lease", "LOST at the validity deadline",
					"signalled " + detected + " ms after the grant (lease 1 s); later locks renew again");
		}
		finally {
			unblock.countDown();
			registry.close();
		}
	}

	@Test
	void t23AnEarlyExpiryOnTheServerIsNoticedWithinOneRenewalInterval() throws Exception {
		try (RedisLockRegistry registry = RedisLockRegistry.builder(redis.server().connectionFactory())
			.leaseTime(Duration.ofSeconds(2))
			.build()) {
			List<LockLease> leases = new ArrayList<>();
			List<CompletableFuture<Long>> losses = new ArrayList<>();
			for (int i = 0; i < 10; i++) {
				LockLease lease = registry.acquire("t23:" + UUID.randomUUID(), Duration.ZERO);
				CompletableFuture<Long> lostAt = new CompletableFuture<>();
				lease.onLost((ex) -> lostAt.complete(System.nanoTime()));
				leases.add(lease);
				losses.add(lostAt);
			}
			long expiredAt = System.nanoTime();
			for (LockLease lease : leases) {
				// The deterministic stand-in of a forward clock jump on the Redis host.
				redis.server().command("PEXPIRE", "distlock:{" + lease.key() + "}", "1");
			}
			long slowest = 0;
			for (CompletableFuture<Long> lost : losses) {
				slowest = Math.max(slowest, TimeUnit.NANOSECONDS.toMillis(lost.get(5, TimeUnit.SECONDS) - expiredAt));
			}
			assertThat(slowest).isLessThanOrEqualTo(667 + 150);
			assertThat(leases).allSatisfy((lease) -> assertThat(lease.isValid()).isFalse());
			FaultReport.row("T23", "10 held keys expire early on the server (PEXPIRE 1, a clock jump)",
					"LOST at the next renewal", "10/10 within " + slowest + " ms (renewal interval 667 ms)");
			leases.forEach((lease) -> {
				try {
					lease.release();
				}
				catch (RuntimeException ex) {
					// Expected: each was lost.
				}
			});
		}
	}


	/**
	 * A store whose renewals hang until released: a starved or stuck watchdog.
	 */
	private static final class BlockingRenewals extends ForwardingLockStore {

		private final CountDownLatch unblock;

		BlockingRenewals(LocalHandoffStore delegate, CountDownLatch unblock) {
			super(delegate);
			this.unblock = unblock;
		}

		@Override
		public CompletableFuture<boolean[]> renew(List<HeldKey> grants, Duration leaseTime) {
			try {
				this.unblock.await();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			return super.renew(grants, leaseTime);
		}

	}

}

package io.distlock.jdbc;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.distlock.core.LockLease;
import io.distlock.test.process.ChildJvm;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * JVMs whose wall clocks are an hour either side of the database's (libfaketime, {@link FakeTime};
 * their {@code System.nanoTime} stays true), contending on one key of one PostgreSQL (catalogue
 * T46): mutual exclusion holds, a lease whose holder stops renewing expires after its lease time
 * as the parent measures it (a lease computed on either JVM clock would be off by an hour), and
 * fencing tokens still strictly increase. Each child checks that its clock really is an hour off
 * and fails otherwise. Needs Debian's {@code faketime}; skipped with the reason without it, and
 * failing under {@code CI=true}.
 */
@Tag("fault")
@Timeout(180)
class JvmClockSkewFaultIntegrationTests {

	private static final Duration HOUR = Duration.ofHours(1);

	private static final Duration LEASE = Duration.ofSeconds(3);

	private static final int THREADS = 4;

	private static final int INCREMENTS = 40;

	@RegisterExtension
	static final PostgresServerExtension postgres = new PostgresServerExtension();

	@BeforeAll
	static void requireFakeTime() {
		FakeTime.unavailableReason().ifPresent((reason) -> {
			if ("true".equals(System.getenv("CI"))) {
				throw new IllegalStateException(reason + " (CI=true: not skipped)");
			}
			Assumptions.abort(reason);
		});
	}

	@Test
	void counterUnderTheLockIsExactWithJvmClocksAnHourEitherSideOfTheDatabase() throws Exception {
		postgres.update("CREATE TABLE IF NOT EXISTS counter (id TEXT PRIMARY KEY, value INT NOT NULL)");
		String counter = UUID.randomUUID().toString();
		postgres.update("INSERT INTO counter (id, value) VALUES (?, 0)", counter);
		String[] arguments = { port(), "counter:" + counter, counter, Integer.toString(THREADS),
				Integer.toString(INCREMENTS), "locked" };
		try (ChildJvm ahead = skewed(HOUR, CounterWorkerMain.class, arguments);
				ChildJvm behind = skewed(HOUR.negated(), CounterWorkerMain.class, arguments)) {
			assertSkew(ahead, HOUR);
			assertSkew(behind, HOUR.negated());
			assertThat(ahead.awaitLine("DONE", 150, TimeUnit.SECONDS)).as(ahead::output).isEqualTo("DONE failures=0");
			assertThat(behind.awaitLine("DONE", 150, TimeUnit.SECONDS)).as(behind::output)
				.isEqualTo("DONE failures=0");
		}
		assertThat(postgres.count("SELECT value FROM counter WHERE id = ?", counter))
			.isEqualTo(2 * THREADS * INCREMENTS);
	}

	@ParameterizedTest(name = "holder's clock {0} h off, waiter's the opposite")
	@ValueSource(ints = { 1, -1 })
	void leaseOfAHolderThatStopsRenewingExpiresAfterItsLeaseTimeAndTokensGrow(int hours) throws Exception {
		Duration holderOffset = Duration.ofHours(hours);
		String key = "skewed:" + UUID.randomUUID();
		String lease = Long.toString(LEASE.toMillis());
		try (ChildJvm holder = skewed(holderOffset, SkewedLockMain.class, port(), key, lease, "hold")) {
			assertSkew(holder, holderOffset);
			long held = Long.parseLong(holder.awaitLine("HELD", 30, TimeUnit.SECONDS).substring("HELD ".length()));
			try (ChildJvm waiter = skewed(holderOffset.negated(), SkewedLockMain.class, port(), key, lease, "wait")) {
				assertSkew(waiter, holderOffset.negated());
				waiter.awaitLine("WAITING", 30, TimeUnit.SECONDS);
				// Two lease times while the holder renews: nobody else gets in (an expiry on the
				// holder's clock an hour behind would have let the waiter in at once).
				Thread.sleep(2 * LEASE.toMillis());
				assertThat(waiter.output()).as("while the holder renews").doesNotContain("ACQUIRED");
				long stoppedAt = System.nanoTime();
				holder.pause();
				long acquired = Long
					.parseLong(waiter.awaitLine("ACQUIRED", 60, TimeUnit.SECONDS).substring("ACQUIRED ".length()));
				Duration expiredAfter = Duration.ofNanos(System.nanoTime() - stoppedAt);
				// The last renewal came at most a third of the lease before the pause; the waiter
				// retries after the holder's remaining lease. An hour either way would be far out.
				assertThat(expiredAfter).as("from the holder's last chance to renew to the waiter's grant")
					.isBetween(LEASE.multipliedBy(2).dividedBy(3).minusMillis(500), LEASE.plusSeconds(3));
				assertThat(acquired).as("the waiter's token after the holder's").isGreaterThan(held);
				try (PostgresLockRegistry parent = PostgresLockRegistry.builder(postgres.dataSource()).build();
						LockLease next = parent.acquire(key, Duration.ofSeconds(5))) {
					assertThat(next.fencingToken()).as("a third grant, on this JVM's true clock").isGreaterThan(acquired);
				}
			}
		}
	}

	private static ChildJvm skewed(Duration offset, Class<?> main, String... arguments) throws Exception {
		return ChildJvm.start(FakeTime.offsetBy(offset),
				List.of("-D" + ClockSkew.EXPECTED_PROPERTY + "=" + offset.toMillis()), main, arguments);
	}

	private static void assertSkew(ChildJvm child, Duration offset) throws InterruptedException {
		long skew = Long.parseLong(child.awaitLine("SKEW", 30, TimeUnit.SECONDS).substring("SKEW ".length()));
		assertThat(Duration.ofMillis(skew)).as("the child's clock against the database's")
			.isBetween(offset.minusMinutes(1), offset.plusMinutes(1));
	}

	private static String port() {
		return Integer.toString(postgres.postgres().getPort());
	}

}

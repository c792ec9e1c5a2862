package io.distlock.jdbc;

import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.distlock.test.process.ChildJvm;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Mutual exclusion across two JVMs on PostgreSQL, measured as ShedLock's fuzz test does: a
 * non-atomic counter (read, sleep 1 ms, write) incremented under the lock by 4 threads in each of
 * two processes must end exact; without the lock (the negative control) updates are lost.
 */
@Timeout(180)
class PostgresLockFuzzIntegrationTests {

	private static final int THREADS = 4;

	private static final int INCREMENTS = 40;

	@RegisterExtension
	static final PostgresServerExtension postgres = new PostgresServerExtension();

	@Test
	void counterUnderTheLockIsExactAcrossTwoJvms() throws Exception {
		assertThat(runTwoWorkers("locked")).isEqualTo(2 * THREADS * INCREMENTS);
	}

	@Test
	void counterWithoutTheLockLosesUpdates() throws Exception {
		assertThat(runTwoWorkers("unlocked")).isLessThan(2 * THREADS * INCREMENTS);
	}

	private int runTwoWorkers(String mode) throws Exception {
		postgres.update("CREATE TABLE IF NOT EXISTS counter (id TEXT PRIMARY KEY, value INT NOT NULL)");
		String counter = UUID.randomUUID().toString();
		postgres.update("INSERT INTO counter (id, value) VALUES (?, 0)", counter);
		String port = Integer.toString(postgres.postgres().getPort());
		String lockKey = "counter:" + counter;
		try (ChildJvm first = ChildJvm.start(CounterWorkerMain.class, port, lockKey, counter,
				Integer.toString(THREADS), Integer.toString(INCREMENTS), mode);
				ChildJvm second = ChildJvm.start(CounterWorkerMain.class, port, lockKey, counter,
						Integer.toString(THREADS), Integer.toString(INCREMENTS), mode)) {
			assertThat(first.awaitLine("DONE", 150, TimeUnit.SECONDS)).as(first::output).isEqualTo("DONE failures=0");
			assertThat(second.awaitLine("DONE", 150, TimeUnit.SECONDS)).as(second::output)
				.isEqualTo("DONE failures=0");
		}
		return postgres.count("SELECT value FROM counter WHERE id = ?", counter);
	}

}

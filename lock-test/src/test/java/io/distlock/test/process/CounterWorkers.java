package io.distlock.test.process;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs two {@link CounterWorkerMain} processes of four threads each against one lock key and
 * one counter, as two instances of an application would, and checks that no worker thread of
 * either died. The caller reads the counter afterwards: exact under a lock, short of the total
 * without one.
 */
public final class CounterWorkers {

	private CounterWorkers() {
	}

	/**
	 * Run the two processes and wait for both to finish.
	 * @param ports the Redis port, or for {@code redlock} the nodes' ports separated by commas
	 * @param lockKey the lock key both processes use
	 * @param counterKey the counter's key, set to {@code 0} by the caller
	 * @param increments the increments per thread
	 * @param mode the lock, as {@link CounterWorkerMain} takes it, such as {@code locked}
	 * @param timeout how long each process may take
	 * @throws Exception if a process could not be started or waited for
	 */
	public static void runTwo(String ports, String lockKey, String counterKey, int increments, String mode,
			Duration timeout) throws Exception {
		String[] arguments = { ports, lockKey, counterKey, "4", Integer.toString(increments), mode };
		try (ChildJvm first = ChildJvm.start(CounterWorkerMain.class, arguments);
				ChildJvm second = ChildJvm.start(CounterWorkerMain.class, arguments)) {
			for (ChildJvm worker : new ChildJvm[] { first, second }) {
				assertThat(worker.awaitLine("DONE", timeout.toSeconds(), TimeUnit.SECONDS)).as(worker::output)
					.isEqualTo("DONE failures=0");
			}
		}
	}

}

package io.distlock.detector;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Runs the same task on many workers at once and waits for all of them, failing with the first
 * worker's exception.
 */
public final class Workers {

	private Workers() {
	}

	/**
	 * Run {@code task} once per worker index on the executor, wait at most 90 s for all, then shut
	 * the executor down.
	 */
	public static void runAll(ExecutorService executor, int workers, Task task) throws Exception {
		try {
			List<Future<?>> futures = new ArrayList<>(workers);
			for (int i = 0; i < workers; i++) {
				int index = i;
				futures.add(executor.submit(() -> {
					task.run(index);
					return null;
				}));
			}
			for (Future<?> future : futures) {
				future.get(90, TimeUnit.SECONDS);
			}
		}
		finally {
			executor.shutdownNow();
		}
	}

	/**
	 * The work of one worker.
	 */
	@FunctionalInterface
	public interface Task {

		void run(int worker) throws Exception;

	}

}

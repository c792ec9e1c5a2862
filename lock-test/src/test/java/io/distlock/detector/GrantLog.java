package io.distlock.detector;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.locks.LockSupport;

/**
 * The fencing-token detector: every grant of one key, logged under the lock, so in grant order,
 * with the worker that got it. Tokens must grow with every grant; on Redis, a grant whose token
 * is its predecessor's plus one came by a local handoff (Redis mints the server time in
 * microseconds, which moves on by far more between two grants a section apart).
 */
public final class GrantLog {

	private final List<long[]> grants = new ArrayList<>();

	/**
	 * Log a grant; call it while holding the lock.
	 * @param waitedNanos how long the worker waited for it
	 */
	public synchronized void granted(int worker, long fencingToken, long waitedNanos) {
		this.grants.add(new long[] { worker, fencingToken, waitedNanos });
	}

	public synchronized int size() {
		return this.grants.size();
	}

	/**
	 * Return the first grant whose token is not larger than its predecessor's, described.
	 */
	public synchronized Optional<String> firstDecrease() {
		for (int i = 1; i < this.grants.size(); i++) {
			if (token(i) <= token(i - 1)) {
				return Optional.of("grant " + i + " of worker " + this.grants.get(i)[0] + " has token " + token(i)
						+ " after " + token(i - 1));
			}
		}
		return Optional.empty();
	}

	/**
	 * Return how many grants came by a local handoff.
	 */
	public synchronized int handoffs() {
		int handoffs = 0;
		for (int i = 1; i < this.grants.size(); i++) {
			if (handedOver(i)) {
				handoffs++;
			}
		}
		return handoffs;
	}

	/**
	 * Return how many runs the grants form: a grant from the store and the handoffs after it.
	 */
	public synchronized int runs() {
		return this.grants.size() - handoffs();
	}

	/**
	 * Return the most grants in one run.
	 */
	public synchronized int longestRun() {
		int longest = 0;
		int run = 0;
		for (int i = 0; i < this.grants.size(); i++) {
			run = (i > 0 && handedOver(i)) ? run + 1 : 1;
			longest = Math.max(longest, run);
		}
		return longest;
	}

	/**
	 * Return the number of grants per worker.
	 */
	public synchronized Map<Integer, Integer> grantsByWorker() {
		Map<Integer, Integer> byWorker = new TreeMap<>();
		for (long[] grant : this.grants) {
			byWorker.merge((int) grant[0], 1, Integer::sum);
		}
		return byWorker;
	}

	/**
	 * Return the longest wait of a worker for a grant, in milliseconds.
	 */
	public synchronized long longestWaitMillis(int worker) {
		long longest = 0;
		for (long[] grant : this.grants) {
			if (grant[0] == worker) {
				longest = Math.max(longest, grant[2]);
			}
		}
		return longest / 1_000_000;
	}

	/**
	 * Work under the lock for at least the given time: a spin below a millisecond, a sleep
	 * above.
	 */
	public static void work(Duration section) throws InterruptedException {
		if (section.toMillis() >= 1) {
			Thread.sleep(section.toMillis());
			return;
		}
		long until = System.nanoTime() + section.toNanos();
		while (System.nanoTime() - until < 0) {
			LockSupport.parkNanos(1_000);
		}
	}

	private boolean handedOver(int index) {
		return token(index) == token(index - 1) + 1;
	}

	private long token(int index) {
		return this.grants.get(index)[1];
	}

}

package io.distlock.faults;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * T34's checker: the history of every hold of one key, from all processes, checked against a
 * mutex whose holds end at the release or at the end of the lease's validity, whichever is first.
 * Holds that overlap in that sense break exclusion; holds that a paused holder only believed it
 * had (past its validity) are allowed to overlap, which is what fencing is for. Times are
 * {@link System#nanoTime()} values, one monotonic clock for every process of a host.
 */
final class MutexHistory {

	private final List<Hold> holds;

	private MutexHistory(List<Hold> holds) {
		this.holds = holds;
	}

	/**
	 * Read the history the workers appended to {@code history:<key>} on the oracle, one
	 * {@code start end validUntil token holder} entry per hold.
	 */
	static MutexHistory load(StringRedisTemplate oracle, String key) {
		List<Hold> holds = new ArrayList<>();
		for (String entry : oracle.opsForList().range("history:" + key, 0, -1)) {
			String[] fields = entry.split(" ");
			holds.add(new Hold(Long.parseLong(fields[0]), Long.parseLong(fields[1]), Long.parseLong(fields[2]),
					Long.parseLong(fields[3]), fields[4]));
		}
		return of(holds);
	}

	/**
	 * Return the history of the given holds.
	 */
	static MutexHistory of(List<Hold> holds) {
		List<Hold> sorted = new ArrayList<>(holds);
		sorted.sort(Comparator.comparingLong(Hold::start));
		return new MutexHistory(sorted);
	}

	int size() {
		return this.holds.size();
	}

	/**
	 * Return every hold that began, valid, while an earlier hold was still valid and not yet
	 * released.
	 */
	List<String> overlaps() {
		return overlappingPairs().stream()
			.map((pair) -> pair.later() + " began " + (pair.earlier().validEnd() - pair.later().start()) / 1_000
					+ " µs before " + pair.earlier() + " ended")
			.toList();
	}

	/**
	 * Return every hold that began, valid, while an earlier hold was still valid and not yet
	 * released, with that earlier hold. A hold that was never valid after it began (its lease was
	 * lost, and its holder told, before it began, as when a multi-lock's first key is lost while
	 * it waits for the next) is no hold of the mutex: it overlaps nothing.
	 */
	List<Overlap> overlappingPairs() {
		List<Overlap> overlaps = new ArrayList<>();
		Hold latest = null;
		for (Hold hold : this.holds) {
			if (latest != null && hold.start() - latest.validEnd() < 0 && hold.validEnd() - hold.start() > 0) {
				overlaps.add(new Overlap(latest, hold));
			}
			if (latest == null || hold.validEnd() - latest.validEnd() > 0) {
				latest = hold;
			}
		}
		return overlaps;
	}

	/**
	 * Return every hold whose token is not larger than its predecessor's, in the order of the
	 * holds.
	 */
	List<String> tokenDecreases() {
		List<String> decreases = new ArrayList<>();
		for (int i = 1; i < this.holds.size(); i++) {
			if (this.holds.get(i).token() <= this.holds.get(i - 1).token()) {
				decreases.add(this.holds.get(i) + " after " + this.holds.get(i - 1));
			}
		}
		return decreases;
	}

	/**
	 * Two holds that overlap: {@code later} began before {@code earlier} ended.
	 */
	record Overlap(Hold earlier, Hold later) {
	}

	/**
	 * One hold: from when the holder had the lock to when it released it, valid until its lease's
	 * deadline.
	 */
	record Hold(long start, long end, long validUntil, long token, String holder) {

		long validEnd() {
			return Math.min(this.end, this.validUntil);
		}

		@Override
		public String toString() {
			return "hold of " + this.holder + " (token " + this.token + ")";
		}

	}

}

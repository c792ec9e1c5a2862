package io.distlock.leader;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The grants and revocations of several instances' elections of one role, in the order their
 * listeners heard them (one list, so the order is the order of the calls), with the thread each
 * ran on and, for a revocation, the validity its lease still had.
 */
final class LeadershipLog {

	record Entry(String instance, boolean granted, long epoch, RevocationReason reason, String thread,
			Duration remaining) {

		@Override
		public String toString() {
			return this.instance + (this.granted ? " granted " : " revoked ") + this.epoch
					+ (this.granted ? "" : " " + this.reason) + " on " + this.thread;
		}

	}

	private final List<Entry> entries = new CopyOnWriteArrayList<>();

	LeadershipListener listener(String instance) {
		return new LeadershipListener() {

			@Override
			public void granted(Leadership leadership) {
				LeadershipLog.this.entries.add(new Entry(instance, true, leadership.epoch(), null,
						Thread.currentThread().getName(), leadership.lease().remaining()));
			}

			@Override
			public void revoked(Leadership leadership, RevocationReason reason) {
				LeadershipLog.this.entries.add(new Entry(instance, false, leadership.epoch(), reason,
						Thread.currentThread().getName(), leadership.lease().remaining()));
			}

			@Override
			public String toString() {
				return "log of " + instance;
			}

		};
	}

	List<Entry> entries() {
		return List.copyOf(this.entries);
	}

	List<Entry> grants() {
		return this.entries.stream().filter(Entry::granted).toList();
	}

	List<Entry> revocations() {
		return this.entries.stream().filter((entry) -> !entry.granted()).toList();
	}

	/**
	 * Return what breaks "one leader at a time" in the recorded order: a grant while another
	 * instance's term has not been revoked, a revocation of a term not granted, or an epoch not
	 * larger than the previous term's. Empty when the terms follow each other.
	 */
	List<String> violations() {
		List<String> violations = new ArrayList<>();
		Entry current = null;
		long lastEpoch = 0;
		for (Entry entry : this.entries) {
			if (entry.granted()) {
				if (current != null) {
					violations.add(entry + " while " + current + " leads");
				}
				if (entry.epoch() <= lastEpoch) {
					violations.add(entry + " after epoch " + lastEpoch);
				}
				current = entry;
				lastEpoch = Math.max(lastEpoch, entry.epoch());
			}
			else if (current != null && current.instance().equals(entry.instance()) && current.epoch() == entry.epoch()) {
				current = null;
			}
			else {
				violations.add(entry + " revokes a term that is not the current one (" + current + ")");
			}
		}
		return violations;
	}

}

package io.distlock.test.leader;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The detector of two leaders: a shared record that only the leader appends to, each entry
 * {@code <instance> <epoch>}, in the order the record's Redis applied the appends. One leader at
 * a time means the entries of a term form one block, and the blocks' epochs grow.
 */
final class LeaderRecord {

	private LeaderRecord() {
	}

	/**
	 * Return where the record shows two leaders: a term that writes again after another term
	 * wrote, or a term whose epoch is not larger than the one before it.
	 * @param entries the record, oldest first
	 * @return the violations, empty when the terms follow each other
	 */
	static List<String> interleavings(List<String> entries) {
		List<String> violations = new ArrayList<>();
		Set<String> ended = new HashSet<>();
		String current = null;
		long lastEpoch = -1;
		for (int i = 0; i < entries.size(); i++) {
			String term = entries.get(i);
			if (term.equals(current)) {
				continue;
			}
			if (current != null) {
				ended.add(current);
			}
			if (ended.contains(term)) {
				violations.add("entry " + i + ": '" + term + "' writes again after '" + current + "'");
			}
			long epoch = Long.parseLong(term.substring(term.lastIndexOf(' ') + 1));
			if (epoch <= lastEpoch && epoch != 0) {
				violations.add("entry " + i + ": '" + term + "' after epoch " + lastEpoch);
			}
			lastEpoch = Math.max(lastEpoch, epoch);
			current = term;
		}
		return violations;
	}

}

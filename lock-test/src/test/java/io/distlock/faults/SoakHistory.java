package io.distlock.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * T38's checker: every hold the soak's processes logged (see {@code SoakWorkerMain}), the faults
 * the schedule injected, and the administrator deletes, checked for the catalogue's promises.
 * <ul>
 * <li><b>Exclusion:</b> for every key, the exclusive, fixed-lease and writer holds form a
 * validity-bounded mutex ({@link MutexHistory}); no reader overlaps a writer. A hold that was
 * never valid after it began (its grant was lost, and its holder told, before its section began:
 * a multi-lock's first key lost while it waited for the second) overlaps nothing. An administrator
 * {@code DEL} breaks assumption A1 (the key stays for its whole TTL), so a hold it cut ends at the
 * {@code DEL}, and holds that begin within one lease after it (while the victim may not know yet)
 * are left out of the exclusion check; they are checked for the loss signal instead.</li>
 * <li><b>Fencing:</b> the tokens of the exclusive, fixed-lease and writer holds of a key that
 * were valid after their grant returned (so not those inside a {@code DEL} window) grow from one
 * hold to the next, across every fault (the server runs with
 * {@code --appendonly yes --appendfsync always}, and tokens are minted from the server's clock,
 * so restarts are not left out).</li>
 * <li><b>Loss signal:</b> a hold that must have been lost was told: one that outlived its fixed
 * lease, one that spanned a {@code DEL} of its key, one that spanned an outage (Redis frozen or
 * down, or its process black-holed) at least one lease long. As the guarantees promise for local
 * handoff, a hold that spanned a {@code DEL} and then handed its grant to the next waiter of its
 * process (no round trip) may instead have the loss told to the hold that has the grant when the
 * loss is found: a later hold down the same chain of handoffs, within one lease of the
 * {@code DEL}.</li>
 * </ul>
 */
final class SoakHistory {

	private final List<Entry> entries;

	private final List<Outage> outages;

	private final List<Delete> deletes;

	private final Duration lease;

	SoakHistory(List<String> lines, List<Outage> outages, List<Delete> deletes, Duration lease) {
		this.entries = lines.stream().map(Entry::parse).toList();
		this.outages = List.copyOf(outages);
		this.deletes = List.copyOf(deletes);
		this.lease = lease;
	}

	int size() {
		return this.entries.size();
	}

	long signalled() {
		return this.entries.stream().filter(Entry::signalled).count();
	}

	Map<String, Integer> holdsByKey() {
		Map<String, Integer> byKey = new TreeMap<>();
		this.entries.forEach((entry) -> byKey.merge(entry.key() + "/" + entry.mode(), 1, Integer::sum));
		return byKey;
	}

	/**
	 * Return every pair of holds that overlap while both were valid.
	 */
	List<String> overlaps() {
		List<String> overlaps = new ArrayList<>();
		for (String key : keys()) {
			List<MutexHistory.Hold> exclusive = new ArrayList<>();
			for (Entry entry : entriesOf(key, (entry) -> !entry.mode().equals("R"))) {
				exclusive.add(checked(entry));
			}
			MutexHistory.of(exclusive).overlaps().forEach((overlap) -> overlaps.add(key + ": " + overlap));
			List<Entry> readers = entriesOf(key, (entry) -> entry.mode().equals("R"));
			for (Entry writer : entriesOf(key, (entry) -> entry.mode().equals("W"))) {
				MutexHistory.Hold w = checked(writer);
				for (Entry reader : readers) {
					MutexHistory.Hold r = checked(reader);
					// Both valid at once: a hold never valid after it began (lost before) overlaps nothing.
					if (r.start() - w.validEnd() < 0 && w.start() - r.validEnd() < 0 && r.validEnd() - r.start() > 0
							&& w.validEnd() - w.start() > 0) {
						overlaps.add(key + ": reader " + r + " overlaps writer " + w);
					}
				}
			}
		}
		return overlaps;
	}

	/**
	 * Describe every overlap for a diagnosis: both holds as logged (times relative to the later
	 * hold's start), and the faults from 5 s before to 1 s after it.
	 */
	List<String> explainOverlaps() {
		List<String> explained = new ArrayList<>();
		for (String key : keys()) {
			List<Entry> exclusive = entriesOf(key, (entry) -> !entry.mode().equals("R"));
			List<MutexHistory.Hold> holds = exclusive.stream().map(this::checked).toList();
			for (MutexHistory.Overlap overlap : MutexHistory.of(holds).overlappingPairs()) {
				Entry earlier = exclusive.get(holds.indexOf(overlap.earlier()));
				Entry later = exclusive.get(holds.indexOf(overlap.later()));
				long origin = later.start();
				explained.add("overlap on " + key + ", times relative to the later hold's start:");
				explained.add("  earlier " + earlier.describe(origin));
				explained.add("  later   " + later.describe(origin));
				for (Outage outage : this.outages) {
					if (outage.to() - (origin - 5_000_000_000L) > 0 && outage.from() - (origin + 1_000_000_000L) < 0) {
						explained.add("  fault   " + outage.what() + " from " + Entry.ms(outage.from(), origin) + " to "
								+ Entry.ms(outage.to(), origin));
					}
				}
				for (Delete delete : this.deletes) {
					if (delete.sent() - (origin - 5_000_000_000L) > 0 && delete.sent() - (origin + 1_000_000_000L) < 0) {
						explained.add("  fault   DEL " + delete.key() + (delete.deleted() ? " (held)" : " (free)") + " at "
								+ Entry.ms(delete.sent(), origin));
					}
				}
			}
		}
		return explained;
	}

	/**
	 * Return every hold whose token is not larger than the one before, per key, among the holds
	 * that were valid after their grant returned (ordered by that return).
	 */
	List<String> tokenDecreases() {
		List<String> decreases = new ArrayList<>();
		for (String key : keys()) {
			List<MutexHistory.Hold> holds = new ArrayList<>();
			for (Entry entry : entriesOf(key, (entry) -> !entry.mode().equals("R"))) {
				// Only holds valid for a while after their grant returned: the grant order of those
				// is the order of their returns. A grant lost before its holder first looked (the key
				// deleted or expired while the reply travelled) has no place in that order.
				if (checked(entry).validEnd() - entry.start() > 0) {
					holds.add(entry.hold());
				}
			}
			MutexHistory.of(holds).tokenDecreases().forEach((decrease) -> decreases.add(key + ": " + decrease));
		}
		return decreases;
	}

	/**
	 * Return how many holds were never valid after they began (their grant was lost before their
	 * section began), which overlap nothing in the exclusion check.
	 */
	long neverValid() {
		return this.entries.stream().filter((entry) -> entry.validUntil() == entry.start()).count();
	}

	/**
	 * Return how many holds had to be lost, by the faults and deletes they spanned.
	 */
	long mustHaveLost() {
		return this.entries.stream().filter(this::mustHaveLost).count();
	}

	/**
	 * Return how many holds that had to be lost were not told themselves, but the hold their
	 * grant was handed to locally was (see {@link #unsignalledLosses()}).
	 */
	long toldDownHandoffs() {
		return this.entries.stream()
			.filter((entry) -> mustHaveLost(entry) && !entry.signalled() && toldDownItsHandoffs(entry))
			.count();
	}

	/**
	 * Return every hold that had to be lost but whose holder was never told, neither itself nor,
	 * for a hold that spanned a {@code DEL}, through the holds its grant was handed to locally.
	 */
	List<String> unsignalledLosses() {
		List<String> unsignalled = new ArrayList<>();
		for (Entry entry : this.entries) {
			if (mustHaveLost(entry) && !entry.signalled() && !toldDownItsHandoffs(entry)) {
				unsignalled.add(entry.key() + "/" + entry.mode() + " " + entry.hold() + " from " + entry.start() + " to "
						+ entry.end() + ": " + reason(entry));
			}
		}
		return unsignalled;
	}

	private boolean mustHaveLost(Entry entry) {
		return reason(entry) != null;
	}

	private String reason(Entry entry) {
		if (entry.mode().equals("F") && entry.end() - entry.start() > entry.fixedLeaseNanos()) {
			return "outlived its fixed lease";
		}
		if (spannedDelete(entry) != null) {
			return "spanned a DEL of its key";
		}
		for (Outage outage : this.outages) {
			if (outage.length() >= this.lease.toNanos() && outage.affects(entry.holder())
					&& entry.start() - outage.from() < 0 && entry.end() - outage.to() > 0) {
				return "spanned " + outage.what();
			}
		}
		return null;
	}

	private Delete spannedDelete(Entry entry) {
		for (Delete delete : this.deletes) {
			if (delete.deleted() && delete.key().equals(entry.key()) && entry.start() - delete.sent() < 0
					&& entry.end() - delete.answered() > 0) {
				return delete;
			}
		}
		return null;
	}

	/**
	 * Whether a hold that spanned a {@code DEL} passed its grant on by local handoff and a later
	 * hold of that chain was told of the loss within one lease of the {@code DEL}'s answer (the
	 * window in which the exclusion check already leaves holds out). A handoff keeps the grant in
	 * its process and hands over the previous token plus one, so the next hold of a chain is the
	 * one of the same key and process, with the next token, that began after this one ended. A
	 * hold told by its release throwing has no callback time; its release's invocation stands for
	 * it.
	 */
	private boolean toldDownItsHandoffs(Entry entry) {
		Delete delete = spannedDelete(entry);
		if (delete == null) {
			return false;
		}
		long bound = delete.answered() + this.lease.toNanos();
		for (Entry next = handedTo(entry); next != null; next = handedTo(next)) {
			if (next.start() - bound > 0) {
				return false;
			}
			if (next.signalled()) {
				long told = (next.lostAt() != 0) ? next.lostAt() : next.end();
				return told - bound <= 0;
			}
		}
		return false;
	}

	private Entry handedTo(Entry entry) {
		for (Entry next : this.entries) {
			if (next.key().equals(entry.key()) && next.token() == entry.token() + 1
					&& next.process().equals(entry.process()) && next.start() - entry.end() >= 0) {
				return next;
			}
		}
		return null;
	}

	/**
	 * The hold as the exclusion check sees it: cut at an administrator's delete, empty if it
	 * began while the victim of one may not have known yet.
	 */
	private MutexHistory.Hold checked(Entry entry) {
		long validUntil = entry.validUntil();
		for (Delete delete : this.deletes) {
			if (!delete.deleted() || !delete.key().equals(entry.key())) {
				continue;
			}
			if (entry.start() - delete.sent() < 0 && validUntil - delete.sent() > 0) {
				validUntil = delete.sent();
			}
			if (entry.start() - delete.sent() >= 0 && entry.start() - (delete.answered() + this.lease.toNanos()) <= 0) {
				validUntil = entry.start();
			}
		}
		return new MutexHistory.Hold(entry.start(), entry.end(), validUntil, entry.token(), entry.holder());
	}

	private List<String> keys() {
		return this.entries.stream().map(Entry::key).distinct().sorted().toList();
	}

	private List<Entry> entriesOf(String key, Predicate<Entry> filter) {
		return this.entries.stream().filter((entry) -> entry.key().equals(key) && filter.test(entry)).toList();
	}

	/**
	 * A time when Redis could not be reached by the holders it affects: from after the fault took
	 * effect to before it was healed, so never longer than the real outage.
	 * @param process the pid of the only process it affects, or {@code null} for all
	 */
	record Outage(String what, long from, long to, String process) {

		long length() {
			return this.to - this.from;
		}

		boolean affects(String holder) {
			return this.process == null || holder.startsWith(this.process + "-");
		}

	}

	/**
	 * An administrator's {@code DEL} of a lock key, between sending it and its answer.
	 */
	record Delete(String key, long sent, long answered, boolean deleted) {
	}

	private record Entry(String key, String mode, long start, long end, long validUntil, long token, String holder,
			boolean signalled, long fixedLeaseNanos, long asked, long firstDeadline, long lostAt) {

		static Entry parse(String line) {
			String[] f = line.split(" ");
			return new Entry(f[0], f[1], Long.parseLong(f[2]), Long.parseLong(f[3]), Long.parseLong(f[4]),
					Long.parseLong(f[5]), f[6], f[7].equals("1"), Long.parseLong(f[8]), optional(f, 9),
					optional(f, 10), optional(f, 11));
		}

		private static long optional(String[] fields, int index) {
			return (fields.length > index) ? Long.parseLong(fields[index]) : 0;
		}

		/**
		 * Describe the hold with its times relative to {@code origin}, in milliseconds.
		 */
		String describe(long origin) {
			return this.key + "/" + this.mode + " token " + this.token + " of " + this.holder + ": asked "
					+ ms(this.asked, origin) + ", began " + ms(this.start, origin) + " (deadline then "
					+ ms(this.firstDeadline, origin) + "), released " + ms(this.end, origin) + ", valid until "
					+ ms(this.validUntil, origin) + ", loss told " + ms(this.lostAt, origin)
					+ (this.signalled ? "" : " (never told)");
		}

		private static String ms(long nanos, long origin) {
			return (nanos == 0) ? "-" : String.format("%+.1f ms", (nanos - origin) / 1e6);
		}

		String process() {
			return this.holder.substring(0, this.holder.indexOf('-'));
		}

		MutexHistory.Hold hold() {
			return new MutexHistory.Hold(this.start, this.end, this.validUntil, this.token, this.holder);
		}

	}

}

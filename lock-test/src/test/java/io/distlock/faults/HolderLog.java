package io.distlock.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

import io.distlock.core.LockLease;
import io.distlock.core.LockRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * T44's holders and checker: holders take, try and release keys through it, and it records what
 * each was granted, told and released, in the order it happened (one sequence number across every
 * holder of the test's JVM). Two holders overlap on a key when the
 * second is granted before the first released it; asynchronous replication allows that after a
 * failover, but never silently: the first must be told (its loss signal), before or after.
 */
final class HolderLog {

	private final AtomicLong sequence = new AtomicLong();

	private final Queue<Event> events = new ConcurrentLinkedQueue<>();

	/**
	 * Acquire {@code count} keys named after the prefix, recording each grant and its loss signal.
	 */
	Map<String, LockLease> hold(LockRegistry registry, String holder, String prefix, int count) {
		Map<String, LockLease> leases = new LinkedHashMap<>();
		for (int i = 0; i < count; i++) {
			String key = prefix + ":" + i;
			LockLease lease = registry.acquire(key, Duration.ofSeconds(5));
			granted(holder, key, lease.fencingToken());
			lease.onLost((lost) -> lost(holder, key));
			leases.put(key, lease);
		}
		return leases;
	}

	/**
	 * Try every key without waiting, again every 200 ms, until each is granted or the time is
	 * up; a store error (the contender's connection moving to the new master) counts as not
	 * granted.
	 */
	Map<String, LockLease> contend(LockRegistry registry, String contender, Iterable<String> keys, Duration time) {
		Map<String, LockLease> granted = new LinkedHashMap<>();
		long deadline = System.nanoTime() + time.toNanos();
		List<String> remaining = new ArrayList<>();
		keys.forEach(remaining::add);
		while (!remaining.isEmpty() && System.nanoTime() < deadline) {
			for (String key : List.copyOf(remaining)) {
				Optional<LockLease> lease;
				try {
					lease = registry.tryAcquire(key, Duration.ZERO);
				}
				catch (RuntimeException ex) {
					// The connection is moving to the new master: try again on the next round.
					continue;
				}
				lease.ifPresent((acquired) -> {
					granted(contender, key, acquired.fencingToken());
					granted.put(key, acquired);
					remaining.remove(key);
				});
			}
			pause();
		}
		return granted;
	}

	void release(Map<String, LockLease> leases, String holder) {
		leases.forEach((key, lease) -> {
			lease.release();
			released(holder, key);
		});
	}

	void granted(String holder, String key, long token) {
		add(holder, key, Kind.GRANTED, token);
	}

	void lost(String holder, String key) {
		add(holder, key, Kind.LOST, 0);
	}

	void released(String holder, String key) {
		add(holder, key, Kind.RELEASED, 0);
	}

	List<Event> events() {
		return List.copyOf(this.events);
	}

	/**
	 * Return the overlaps: a grant of a key to one holder while another held it (granted, not yet
	 * released).
	 */
	List<Overlap> overlaps() {
		return overlaps(events());
	}

	/**
	 * Return the overlaps of a history where holders ignore their loss signals, as a holder that
	 * never looks at {@code isValid()} or {@code onLost} does: the detector's negative control.
	 */
	List<Overlap> overlapsIgnoringLossSignals() {
		return overlaps(events().stream().filter(Predicate.not((event) -> event.kind() == Kind.LOST)).toList());
	}

	/**
	 * Wait until the first holder of each of the expected overlaps has been told, then check the
	 * negative control: read as by holders that ignore loss signals, the same history has that
	 * many silent double holders.
	 * @param expected how many overlaps there are
	 * @param within how long the last holder may take to be told
	 * @return the overlaps
	 */
	List<Overlap> awaitEveryOverlapTold(int expected, Duration within) {
		await().atMost(within)
			.untilAsserted(() -> assertThat(overlaps()).as("overlapping holders, each told")
				.hasSize(expected)
				.noneMatch(Overlap::silent));
		List<Overlap> overlaps = overlaps();
		assertThat(overlapsIgnoringLossSignals()).as("negative control: loss signals ignored")
			.hasSize(expected)
			.allMatch(Overlap::silent);
		return overlaps;
	}

	private static List<Overlap> overlaps(List<Event> history) {
		List<Overlap> overlaps = new ArrayList<>();
		for (Event grant : history) {
			if (grant.kind() != Kind.GRANTED) {
				continue;
			}
			for (Event earlier : history) {
				if (earlier.kind() == Kind.GRANTED && earlier.sequence() < grant.sequence()
						&& earlier.key().equals(grant.key()) && !earlier.holder().equals(grant.holder())
						&& !releasedBetween(history, earlier, grant.sequence())) {
					Event told = history.stream()
						.filter((event) -> event.kind() == Kind.LOST && event.key().equals(earlier.key())
								&& event.holder().equals(earlier.holder()) && event.sequence() > earlier.sequence())
						.findFirst()
						.orElse(null);
					overlaps.add(new Overlap(earlier, grant, told));
				}
			}
		}
		return overlaps;
	}

	private static boolean releasedBetween(List<Event> history, Event grant, long before) {
		return history.stream()
			.anyMatch((event) -> event.kind() == Kind.RELEASED && event.key().equals(grant.key())
					&& event.holder().equals(grant.holder()) && event.sequence() > grant.sequence()
					&& event.sequence() < before);
	}

	private static void pause() {
		try {
			Thread.sleep(200);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private void add(String holder, String key, Kind kind, long token) {
		// The sequence number and the append are one step for the order to be the queue's order.
		synchronized (this.events) {
			this.events.add(new Event(this.sequence.incrementAndGet(), holder, key, kind, token));
		}
	}

	enum Kind {

		GRANTED, LOST, RELEASED

	}

	record Event(long sequence, String holder, String key, Kind kind, long token) {
	}

	/**
	 * A grant to {@code successor} while {@code holder} held the key; {@code told} is the
	 * holder's loss signal, or null if it never came (a silent double holder).
	 */
	record Overlap(Event holder, Event successor, Event told) {

		boolean silent() {
			return this.told == null;
		}

		boolean toldBeforeTheSuccessor() {
			return this.told != null && this.told.sequence() < this.successor.sequence();
		}

	}

}

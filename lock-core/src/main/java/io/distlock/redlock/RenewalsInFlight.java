package io.distlock.redlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.distlock.store.LockStore.HeldKey;

/**
 * The Redlock renewals on their way per grant, and the grants released lately: a renewal
 * re-creates a key on a node that lost it, so one still on its way when the grant is released
 * could re-create the key on a node where the release's delete arrived first. A release waits
 * for such renewals and gives the key back once more; a renewal computed before a release skips
 * the released grant.
 */
final class RenewalsInFlight {

	/** The shortest time a release waits for a renewal on its way before giving back again. */
	private static final Duration MIN_RENEWAL_WAIT_TIME = Duration.ofSeconds(2);

	private final Duration perNodeTimeout;

	/**
	 * The renewals on their way per grant: one that overlaps another (the watchdog starts the
	 * next batch once a quorum answered, while a slow node may still run the last) joins it, so
	 * that a release waits for every one of them.
	 */
	private final Map<String, CompletableFuture<Void>> renewing = new ConcurrentHashMap<>();

	/** Grants released lately, with when: a renewal computed before the release skips them. */
	private final Map<String, Long> released = new ConcurrentHashMap<>();

	RenewalsInFlight(Duration perNodeTimeout) {
		this.perNodeTimeout = perNodeTimeout;
	}

	/**
	 * Release a grant, then, if a renewal was on its way, wait for it and give the key back once
	 * more.
	 * @param releaseOnQuorum releases the grant on every node
	 * @return the first give-back's answer
	 */
	CompletableFuture<Boolean> release(String key, String owner, Supplier<CompletableFuture<Boolean>> releaseOnQuorum) {
		// Mark first, check for a renewal after: a renewal that registers before the mark is
		// waited for below, one that registers after it sees the mark and skips the grant.
		String id = grantId(key, owner);
		forgetOldReleases();
		this.released.put(id, System.nanoTime());
		// A renewal that registered before the mark may re-create the key on a node where this
		// release's delete arrives first, and still finish (and leave the map) before the
		// release's last answer: remember it now, not only after the release.
		CompletableFuture<Void> renewalAtMark = this.renewing.get(id);
		CompletableFuture<Boolean> released = releaseOnQuorum.get();
		return released.handle((answer, failure) -> {
			CompletableFuture<Void> later = this.renewing.get(id);
			return (later != null) ? later : renewalAtMark;
		}).thenCompose((renewal) -> {
			if (renewal == null) {
				return released;
			}
			// A renewal already on its way re-creates the key on a node where this release
			// deleted it first: wait for it, then give the key back once more. Bounded: a node
			// that hangs beyond its command timeout keeps the renewal open.
			return endedOrTimeUp(renewal, renewalWaitTime())
				.handle((renewed, late) -> releaseOnQuorum.get())
				.thenCompose((again) -> again)
				// The second give-back is best effort, whatever it met: the re-created key
				// expires with its lease. The release's answer is the first give-back's.
				.handle((again, failure) -> released)
				.thenCompose((answer) -> answer);
		});
	}

	/**
	 * Register a batch of renewals as on its way.
	 * @return the batch's end, to pass to {@link #ended(List, CompletableFuture)}
	 */
	CompletableFuture<Void> started(List<HeldKey> grants) {
		CompletableFuture<Void> done = new CompletableFuture<>();
		for (HeldKey grant : grants) {
			this.renewing.merge(grantId(grant.key(), grant.owner()), done,
					(running, next) -> CompletableFuture.allOf(running, next));
		}
		return done;
	}

	/**
	 * Return the grants of a batch that were not released meanwhile.
	 */
	List<HeldKey> live(List<HeldKey> grants) {
		List<HeldKey> live = new ArrayList<>();
		for (HeldKey grant : grants) {
			if (!this.released.containsKey(grantId(grant.key(), grant.owner()))) {
				live.add(grant);
			}
		}
		return live;
	}

	/**
	 * Mark a batch of renewals as ended, and forget the grants no other renewal runs for.
	 */
	void ended(List<HeldKey> grants, CompletableFuture<Void> done) {
		done.complete(null);
		for (HeldKey grant : grants) {
			this.renewing.computeIfPresent(grantId(grant.key(), grant.owner()),
					(id, renewals) -> renewals.isDone() ? null : renewals);
		}
	}

	/**
	 * Return a future that completes when the given one ends or the time is up, whichever comes
	 * first, leaving the given one alone. The timer is never cancelled: cancelling it when the
	 * renewal ends would take the timer queue's lock on the driver's event loop.
	 */
	private static CompletableFuture<Void> endedOrTimeUp(CompletableFuture<?> future, Duration time) {
		CompletableFuture<Void> ended = new CompletableFuture<>();
		future.whenComplete((result, failure) -> ended.complete(null));
		CompletableFuture.delayedExecutor(time.toNanos(), TimeUnit.NANOSECONDS, Runnable::run)
			.execute(() -> ended.complete(null));
		return ended;
	}

	/**
	 * Return how long a release waits for a renewal on its way before it gives the key back once
	 * more: four per-node timeouts, and at least {@link #MIN_RENEWAL_WAIT_TIME}.
	 */
	private Duration renewalWaitTime() {
		Duration fourTimeouts = this.perNodeTimeout.multipliedBy(4);
		return (fourTimeouts.compareTo(MIN_RENEWAL_WAIT_TIME) > 0) ? fourTimeouts : MIN_RENEWAL_WAIT_TIME;
	}

	private void forgetOldReleases() {
		long horizon = System.nanoTime() - TimeUnit.MINUTES.toNanos(1);
		this.released.values().removeIf((releasedAt) -> releasedAt - horizon < 0);
	}

	private static String grantId(String key, String owner) {
		return key + "\u0000" + owner;
	}

}

package io.distlock.leader;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import io.distlock.core.LockAcquisitionException;
import io.distlock.core.LockLease;
import io.distlock.core.LockLostException;
import io.distlock.core.LockRegistry;
import io.distlock.core.LockRequest;

/**
 * The state of one role's election and every change to it, made one at a time on the election's
 * thread: waiting for the lock, the grant, watching the renewals, the step-down. Listeners are
 * told through the {@link LeadershipNotifier}; the lock is released after them.
 */
final class ElectionLoop {

	private static final Log logger = LogFactory.getLog(LeaderElection.class);

	private final LockRegistry registry;

	private final String role;

	private final String key;

	private final Duration retryInterval;

	private final @Nullable Duration renewDeadline;

	private final ScheduledExecutorService scheduler;

	private final LeadershipNotifier notifier;

	private final AtomicReference<Phase> phase = new AtomicReference<>(Phase.NEW);

	private volatile @Nullable Term term;

	private volatile @Nullable Future<?> contention;

	ElectionLoop(LeaderElectionBuilder builder, String key) {
		this.registry = builder.registry;
		this.role = builder.role;
		this.key = key;
		this.retryInterval = builder.retryInterval;
		this.renewDeadline = builder.renewDeadline;
		this.scheduler = Executors.newSingleThreadScheduledExecutor(daemon("distlock-leader-" + this.role));
		this.notifier = new LeadershipNotifier(this.role, builder.listeners);
	}

	@Nullable Term term() {
		return this.term;
	}

	boolean isRunning() {
		return this.phase.get() == Phase.RUNNING;
	}

	/** Start contending, or again after a stop; false if the loop was closed. */
	boolean start() {
		if (this.phase.compareAndSet(Phase.NEW, Phase.RUNNING) || this.phase.compareAndSet(Phase.STOPPED, Phase.RUNNING)) {
			contendAfter(Duration.ZERO);
		}
		return this.phase.get() != Phase.CLOSED;
	}

	void yieldTerm() {
		execute(() -> {
			Term current = this.term;
			if (current != null) {
				stepDown(current, RevocationReason.YIELDED);
			}
		});
	}

	/** Stop contending and step down; the stage completes once the listeners ran and the lock was released. */
	CompletableFuture<Void> stop() {
		CompletableFuture<Void> done = new CompletableFuture<>();
		if (!this.phase.compareAndSet(Phase.RUNNING, Phase.STOPPED)) {
			done.complete(null);
			return done;
		}
		Future<?> waiting = this.contention;
		if (waiting != null) {
			waiting.cancel(true);
		}
		execute(() -> {
			Term current = this.term;
			if (current != null) {
				stepDown(current, RevocationReason.STOPPED);
			}
			// Queued after the step-down's revocation and release, so it completes once they ran.
			this.notifier.then(() -> done.complete(null));
		});
		return done;
	}

	void close() {
		this.phase.set(Phase.CLOSED);
		this.scheduler.shutdownNow();
		this.notifier.close();
	}

	private void contendAfter(Duration delay) {
		try {
			this.contention = this.scheduler.schedule(this::contend, delay.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			// Closed meanwhile: nothing left to contend for.
		}
	}

	private void contend() {
		if (this.phase.get() != Phase.RUNNING || this.term != null) {
			return;
		}
		LockLease lease;
		try {
			lease = this.registry.tryAcquire(LockRequest.of(this.key)
				.name("leader:" + this.role)
				.waitTime(jittered(this.retryInterval))
				.ownedByThread(false)).orElse(null);
		}
		catch (LockAcquisitionException ex) {
			if (this.phase.get() != Phase.RUNNING) {
				return;
			}
			logger.warn("Leader election of role '" + this.role + "' could not reach the lock store; retrying", ex);
			contendAfter(jittered(this.retryInterval));
			return;
		}
		if (lease == null) {
			// The wait itself was jittered and woken by releases: compete again at once.
			contendAfter(Duration.ZERO);
		}
		else if (this.phase.get() != Phase.RUNNING) {
			release(lease);
		}
		else {
			grant(lease);
		}
	}

	private void grant(LockLease lease) {
		Term granted = Term.begin(new Leadership(this.role, lease.fencingToken(), Instant.now(), lease),
				this.renewDeadline);
		this.term = granted;
		logger.debug("Leadership of role '" + this.role + "' granted with epoch " + lease.fencingToken());
		// The callback runs on the watchdog's thread: only hand the loss over to the election's.
		lease.onLost((lost) -> execute(() -> stepDown(granted, RevocationReason.LOST)));
		this.notifier.granted(granted.leadership(),
				() -> execute(() -> stepDown(granted, RevocationReason.GRANT_FAILED)));
		watch(granted);
	}

	private void watch(Term watched) {
		if (this.term != watched) {
			return;
		}
		if (!watched.leadership().lease().isValid()) {
			stepDown(watched, RevocationReason.LOST);
			return;
		}
		Duration sinceRenewal = watched.sinceRenewal();
		if (sinceRenewal.compareTo(watched.renewDeadline()) >= 0) {
			logger.warn("No renewal of the lock of role '" + this.role + "' confirmed within " + watched.renewDeadline()
					+ "; stepping down before the lease can expire");
			stepDown(watched, RevocationReason.RENEW_DEADLINE);
			return;
		}
		Duration untilDeadline = watched.renewDeadline().minus(sinceRenewal).plusMillis(1);
		this.scheduler.schedule(() -> watch(watched), untilDeadline.toNanos(), TimeUnit.NANOSECONDS);
	}

	/** Runs on the election's thread; the term ends once, whatever tells it first. */
	private void stepDown(Term ending, RevocationReason reason) {
		if (this.term != ending) {
			return;
		}
		this.term = null;
		ending.end();
		logger.debug("Leadership of role '" + this.role + "' with epoch " + ending.leadership().epoch()
				+ " revoked: " + reason);
		// Released after the listeners and the calls that run as leader: no other instance leads
		// while they stop the role's work.
		this.notifier.revoked(ending.leadership(), reason, () -> {
			awaitCalls(ending);
			release(ending.leadership().lease());
			if (this.phase.get() == Phase.RUNNING) {
				boolean othersFirst = reason == RevocationReason.YIELDED || reason == RevocationReason.GRANT_FAILED;
				contendAfter(othersFirst ? this.retryInterval : Duration.ZERO);
			}
		});
	}

	private void awaitCalls(Term ending) {
		try {
			ending.awaitCalls();
		}
		catch (InterruptedException ex) {
			// Closing: release at once; the calls still running are the fence's to refuse.
			Thread.currentThread().interrupt();
		}
	}

	private void release(LockLease lease) {
		try {
			lease.release();
		}
		catch (LockLostException ex) {
			// Expected after a loss: the lock is gone already, and the listeners were told.
		}
		catch (RuntimeException ex) {
			logger.warn("Could not release the lock of role '" + this.role + "'; it expires with its lease", ex);
		}
	}

	private void execute(Runnable task) {
		try {
			this.scheduler.execute(task);
		}
		catch (RejectedExecutionException ex) {
			// Closed: the term was ended by stop() already.
		}
	}

	static ThreadFactory daemon(String name) {
		return (task) -> {
			Thread thread = new Thread(task, name);
			thread.setDaemon(true);
			return thread;
		};
	}

	private static Duration jittered(Duration interval) {
		long nanos = interval.toNanos();
		return Duration.ofNanos(nanos * 3 / 4 + ThreadLocalRandom.current().nextLong(nanos / 2 + 1));
	}

	private enum Phase {

		NEW, RUNNING, STOPPED, CLOSED

	}

}

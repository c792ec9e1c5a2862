package io.distlock.engine;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.distlock.store.LockStore;
import io.distlock.store.LockMode;

/**
 * One acquisition on its way, as a chain of continuations rather than a waiting thread: it
 * queues on the local gate, takes over a grant handed to it or asks the store, and between
 * attempts waits as its {@link HoldWait} says. Its {@link #result()} completes with the lease,
 * with {@code null} when the key stayed taken for the whole wait, or exceptionally when the
 * store failed. {@link #cancel()} gives up the place in line: a waiter leaves the queue at once,
 * an attempt in flight is given back when it answers, a grant that raced it is released.
 * <p>
 * Nothing here blocks. The continuations run on the caller's thread, the driver's, the timer
 * (all that call the store after a wait) or, for an asynchronous waiter handed a grant, the
 * releasing thread after its release ({@link HandoffTrampoline}). They change only the engine's
 * state: {@link GrantAcquirer} hands the result to code that is not the engine's.
 */
final class PendingHold {

	private static final Log logger = LogFactory.getLog(PendingHold.class);

	private final RegistryParts parts;

	private final HoldRequest request;

	private final Gate gate;

	private final long holdId;

	private final long startNanos;

	private final String writeOwner;

	private final Duration leaseTime;

	/** The thread that owns the hold, {@code null} for a hold its lease owns. */
	private final Thread ownerThread;

	private final CompletableFuture<HeldLease> result = new CompletableFuture<>();

	private volatile GateWaiter waiter;

	/** Made the first time this acquisition waits; guarded by this. */
	private HoldWait wait;

	PendingHold(RegistryParts parts, HoldRequest request, Gate gate, long holdId, long startNanos,
			String writeOwner, Thread ownerThread) {
		this.ownerThread = ownerThread;
		this.parts = parts;
		this.request = request;
		this.gate = gate;
		this.holdId = holdId;
		this.startNanos = startNanos;
		this.writeOwner = writeOwner;
		this.leaseTime = (request.fixedLease() != null) ? request.fixedLease() : parts.settings().leaseTime();
	}

	HoldRequest request() {
		return this.request;
	}

	CompletableFuture<HeldLease> result() {
		return this.result;
	}

	/**
	 * Give up: complete the result with {@code null} unless it is complete already; whatever is
	 * under way is undone as it comes back.
	 * @return whether the acquisition was given up, {@code false} if its result was already
	 * there
	 */
	boolean cancel() {
		if (!this.result.complete(null)) {
			return false;
		}
		GateWaiter queued = this.waiter;
		if (queued != null && this.gate.withdraw(queued)) {
			ifWaiting(HoldWait::cancelTimer);
			this.parts.gates().release(this.gate);
			return true;
		}
		ifWaiting(HoldWait::wakeUp);
		return true;
	}

	/**
	 * Start on the caller's thread: the gate, and the store at once if the gate is free, out of
	 * reach of the thread's interrupt, which must not cancel the call (see
	 * {@link StoreCalls#shielded}); an interruptible wait sees the flag right after.
	 */
	void start() {
		boolean interrupted = Thread.interrupted();
		try {
			enterGate();
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private void enterGate() {
		if (this.request.waitNanos() == 0) {
			if (this.gate.tryEnter()) {
				proceed(Admission.FREE);
			}
			else {
				finish(null);
			}
			return;
		}
		GateWaiter queued = this.gate.enter(this.parts.handoff().admission(this.request));
		CompletableFuture<Admission> admission = queued.admission();
		if (admission.isDone()) {
			// Let in at once, or handed a grant by a holder that released since it queued: on the
			// caller's own thread, so a handed grant is taken over here.
			Admission now = admission.join();
			if (now.handedOff() != null) {
				takeHandedOver(now.handedOff());
			}
			else {
				proceed(now);
			}
			return;
		}
		this.waiter = queued;
		if (!this.request.forever()) {
			waiting().schedule(this::queueTimedOut, remainingNanos());
		}
		admission.thenAccept(this::admittedAfterWait);
	}

	private void queueTimedOut() {
		GateWaiter queued = this.waiter;
		if (queued != null && this.gate.withdraw(queued)) {
			finish(null);
		}
	}

	/**
	 * The gate let this acquisition in after it queued. A grant handed over is taken at once
	 * where the admission happened, unless the caller is asynchronous code, whose continuations
	 * would then nest one holder inside the previous one: those take it on the releasing thread
	 * once the release is over (see {@link HandoffTrampoline}), or on the timer when the release
	 * was not an asynchronous one. Anything that asks the store after a wait runs on the timer,
	 * never on the thread of whoever left the gate, which may be the driver's.
	 */
	private void admittedAfterWait(Admission admission) {
		this.waiter = null;
		ifWaiting(HoldWait::cancelTimer);
		Grant handed = admission.handedOff();
		if (handed == null) {
			execute(() -> proceed(admission));
		}
		else if (this.request.waiter() != HoldRequest.Waiter.CONTINUATION) {
			takeHandedOver(handed);
		}
		else if (!HandoffTrampoline.defer(() -> takeHandedOver(handed))) {
			execute(() -> takeHandedOver(handed));
		}
	}

	/**
	 * Take over a grant handed over after a wait. With too little of its lease left by now, give
	 * it back in the store (recording its token) and go to the store on the timer, never on the
	 * releasing thread, which may be the driver's.
	 */
	private void takeHandedOver(Grant handed) {
		step(() -> {
			this.parts.deadlines().requireOpen();
			long now = System.nanoTime();
			LocalHandoff handoff = this.parts.handoff();
			if (handoff.hasValidityToPassOn(handed.validUntilNanos(), now)) {
				granted(handed.handedOver(this.request.name(), now));
				return;
			}
			giveBack(() -> handoff.store().releaseExclusive(handed.key(), handed.owner(), LocalHandoff.lastToken(handed)));
			execute(() -> proceed(Admission.FREE));
		});
	}

	/** Go to the store with an admission that hands nothing over, after the yield it asks for. */
	private void proceed(Admission admission) {
		step(() -> {
			this.parts.deadlines().requireOpen();
			long yieldFor = Math.min(admission.yieldNanos(), remainingNanos());
			if (yieldFor > 0) {
				ifWaiting(HoldWait::clearReleaseSignals);
				waiting().pause(this.result, yieldFor, () -> attempt(1));
			}
			else {
				attempt(1);
			}
		});
	}

	private void attempt(int attemptNumber) {
		if (this.result.isDone()) {
			// Cancelled while it paused.
			giveUp();
			return;
		}
		step(() -> {
			this.parts.deadlines().requireOpen();
			String owner = owner(attemptNumber);
			ifWaiting(HoldWait::clearReleaseSignals);
			long sentNanos = System.nanoTime();
			long remaining = remainingNanos();
			Duration bound = this.request.attemptBound(remaining, this.parts.store().acquireAllowance());
			this.parts.deadlines()
				.within(send(owner, remaining), bound)
				.whenComplete((answer, failure) -> step(() -> answered(attemptNumber, owner, sentNanos, answer, failure)));
		});
	}

	/**
	 * Run a step of the chain: a step that throws ends the acquisition with its failure.
	 */
	private void step(Runnable step) {
		try {
			step.run();
		}
		catch (RuntimeException ex) {
			fail(ex);
		}
	}

	private void answered(int attemptNumber, String owner, long sentNanos, LockStore.Acquisition answer,
			Throwable failure) {
		if (failure != null) {
			// The attempt may have been applied and only its reply lost: give back whatever we may
			// hold, so the key does not stay taken for a whole lease.
			giveBack(this.request.mode(), owner);
			fail(this.request.storeFailed(StoreCalls.unwrap(failure)));
			return;
		}
		long now = System.nanoTime();
		if (answer.acquired()) {
			RegistrySettings settings = this.parts.settings();
			long validUntil = settings.validUntilNanos(sentNanos, this.leaseTime);
			long minValidityNanos = Math.max(1, settings.minValidity().toNanos());
			if (validUntil - now >= minValidityNanos) {
				granted(Grant.of(this.request, owner, answer.fencingToken(), this.leaseTime, sentNanos, validUntil,
						sentNanos + settings.renewalInterval().toNanos()));
				return;
			}
			// The reply came so late that too little of the lease is left to rely on: give the
			// key back (owner-compared, so harmless) and carry on.
			logger.warn("Lock for key '" + this.request.key() + "' was granted with less than "
					+ TimeUnit.NANOSECONDS.toMillis(minValidityNanos) + "ms of its " + this.leaseTime.toMillis()
					+ "ms lease left; releasing it and treating it as not acquired");
			giveBack(this.request.mode(), owner);
		}
		long remaining = remainingNanos();
		if (remaining <= 0 || this.result.isDone()) {
			// Out of time, or cancelled.
			giveUp();
			return;
		}
		HoldWait waiting = waiting();
		waiting.listen();
		waiting.pause(this.result, this.parts.settings().retryPauseNanos(answer.holderTtlMillis(), remaining),
				() -> attempt(attemptNumber + 1));
	}

	/** Make the grant a hold (the lease, the gate's occupant, the watchdog's charge), complete with it. */
	private void granted(Grant grant) {
		ifWaiting(HoldWait::stopListening);
		HeldLease lease = new HeldLease(grant, this.gate, this.ownerThread, this.request.executor(),
				this.parts.releaser(), this.parts.upkeep(), this.parts.continuations());
		HeldGrant held = lease.held();
		if (this.result.isDone()) {
			// Given up already: no listener hears of this grant, not even of a loss meanwhile.
			held.markUntold();
		}
		this.gate.occupy(held);
		if (!grant.renewable() || this.parts.gates().isClosed()) {
			// Renewable grants are found at their gate; the registry closing is told here.
			this.parts.watchdog().watch(held);
		}
		if (!this.result.complete(lease)) {
			// Cancelled while the grant was on its way: nobody will release it but us, and the
			// listener, told the acquisition failed, hears nothing of it.
			held.markUntold();
			lease.releaseUnwanted();
		}
	}

	/** Send one attempt to the store. */
	private CompletableFuture<LockStore.Acquisition> send(String owner, long remainingNanos) {
		LockStore store = this.parts.store();
		try {
			return (this.writeOwner != null)
					? store.tryAcquireReadUnderWrite(this.request.key(), owner, this.leaseTime, this.writeOwner)
					: store.tryAcquire(this.request.mode(), this.request.key(), owner, this.leaseTime,
							this.parts.settings().waitHint(remainingNanos));
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * Give back whatever an attempt may hold, owner-compared, without waiting. Best effort: the
	 * key expires with its lease anyway.
	 */
	private void giveBack(LockMode mode, String owner) {
		giveBack(() -> this.parts.store().release(mode, this.request.key(), owner));
	}

	private void giveBack(Supplier<CompletableFuture<?>> release) {
		CompletableFuture<?> call;
		try {
			call = release.get();
		}
		catch (RuntimeException ex) {
			call = CompletableFuture.failedFuture(ex);
		}
		String key = this.request.key();
		this.parts.deadlines().within(call, StoreCalls.RELEASE_TIMEOUT).whenComplete((released, failure) -> {
			if (failure != null) {
				logger.debug("Could not give back lock for key '" + key + "'", failure);
			}
		});
	}

	/**
	 * End without a grant, leaving the gate to the next waiter; a fair waiter gives its place in
	 * the store's queue back at once rather than block it until the place expires.
	 */
	private void giveUp() {
		if (this.request.mode() == LockMode.FAIR) {
			giveBack(LockMode.FAIR, owner(0));
		}
		ifWaiting(HoldWait::stopListening);
		this.gate.leave();
		finish(null);
	}

	private void fail(Throwable failure) {
		ifWaiting(HoldWait::stopListening);
		this.gate.leave();
		this.parts.gates().release(this.gate);
		this.result.completeExceptionally(failure);
	}

	/** Complete without a grant, once the gate is no longer this acquisition's. */
	private void finish(HeldLease lease) {
		this.parts.gates().release(this.gate);
		this.result.complete(lease);
	}

	private synchronized HoldWait waiting() {
		if (this.wait == null) {
			this.wait = new HoldWait(this.parts.deadlines(), this.parts.notifications(), this.request.key());
		}
		return this.wait;
	}

	/** Act on this acquisition's wait, if it ever waited. */
	private void ifWaiting(Consumer<HoldWait> action) {
		HoldWait waiting;
		synchronized (this) {
			waiting = this.wait;
		}
		if (waiting != null) {
			action.accept(waiting);
		}
	}

	private void execute(Runnable task) {
		this.parts.deadlines().execute(task);
	}

	/**
	 * Return the owner an attempt writes: a fresh one per attempt, since a late give-back of a
	 * failed attempt is owner-compared and must never delete a later attempt's grant; one for
	 * all the attempts of a fair waiter, the identity of its place in the queue.
	 */
	private String owner(int attemptNumber) {
		String hold = this.parts.settings().instanceId() + ":" + this.holdId;
		return (this.request.mode() == LockMode.FAIR) ? hold : hold + "." + attemptNumber;
	}

	private long remainingNanos() {
		return this.request.remainingNanos(this.startNanos, System.nanoTime());
	}

}

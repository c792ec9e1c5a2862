package io.distlock.leader;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * A term of leadership as the election watches it: the lease's validity at the grant tells how
 * long ago the watchdog last confirmed a renewal, since each confirmation restores it. It also
 * counts the calls that run as its leader ({@link #enter()}), so that a graceful step-down
 * releases the lock only after them and no other instance acts while they still run.
 */
final class Term {

	private static final Log logger = LogFactory.getLog(Term.class);

	private final Leadership leadership;

	private final Duration validityAtGrant;

	private final Duration renewDeadline;

	private int calls;

	private boolean ending;

	private Term(Leadership leadership, Duration validityAtGrant, Duration renewDeadline) {
		this.leadership = leadership;
		this.validityAtGrant = validityAtGrant;
		this.renewDeadline = renewDeadline;
	}

	/**
	 * Begin a term at its grant, with the renew deadline configured, or two thirds of the lease
	 * when none is (or one not shorter than the lease, which could never step down in time).
	 */
	static Term begin(Leadership leadership, @Nullable Duration configured) {
		Duration validity = leadership.lease().remaining();
		Duration byDefault = validity.multipliedBy(2).dividedBy(3);
		if (configured != null && configured.compareTo(validity) >= 0) {
			logger.warn("Renew deadline " + configured + " of role '" + leadership.role()
					+ "' is not shorter than the lease (" + validity + "): using " + byDefault);
		}
		boolean usable = configured != null && configured.compareTo(validity) < 0;
		return new Term(leadership, validity, usable ? configured : byDefault);
	}

	Leadership leadership() {
		return this.leadership;
	}

	Duration renewDeadline() {
		return this.renewDeadline;
	}

	/** How long ago the last renewal was confirmed, from the validity it left. */
	Duration sinceRenewal() {
		Duration since = this.validityAtGrant.minus(this.leadership.lease().remaining());
		return since.isNegative() ? Duration.ZERO : since;
	}

	/** Whether the term still holds: the lease valid, and renewed within the deadline. */
	boolean holds() {
		return this.leadership.lease().isValid() && sinceRenewal().compareTo(this.renewDeadline) < 0;
	}

	/** Begin a call as this term's leader, if the term holds and is not ending; pair with {@link #exit()}. */
	synchronized boolean enter() {
		if (this.ending || !holds()) {
			return false;
		}
		this.calls++;
		return true;
	}

	synchronized void exit() {
		if (--this.calls == 0) {
			notifyAll();
		}
	}

	/** Refuse new calls: the term is ending. */
	synchronized void end() {
		this.ending = true;
	}

	/** Wait until the calls that entered have returned, at most until the lease's validity ends. */
	synchronized void awaitCalls() throws InterruptedException {
		long deadline = System.nanoTime() + this.leadership.lease().remaining().toNanos();
		for (long left = deadline - System.nanoTime(); this.calls > 0 && left > 0; left = deadline - System.nanoTime()) {
			TimeUnit.NANOSECONDS.timedWait(this, left);
		}
	}

}

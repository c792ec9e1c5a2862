package io.distlock.engine;

import java.time.Duration;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.distlock.core.LockLease;
import io.distlock.core.LockListener;
import io.distlock.core.LockLostException;

/**
 * Calls a listener and keeps its exceptions away from the lock: observing a lock never changes
 * what the lock does. Every callback but an acquisition's goes through here; the
 * {@link GrantAcquirer}, which follows an acquisition from its start to its outcome, tells the
 * listener of that itself and guards each call by {@link #failed}, the one rule for a listener
 * that throws.
 */
final class GuardedLockListener {

	private static final Log logger = LogFactory.getLog(GuardedLockListener.class);

	private final LockListener delegate;

	GuardedLockListener(LockListener delegate) {
		this.delegate = delegate;
	}

	boolean isNonBlocking() {
		try {
			return this.delegate.isNonBlocking();
		}
		catch (RuntimeException ex) {
			failed("isNonBlocking", ex);
			return false;
		}
	}

	void onReleased(LockLease lease, Duration held, LockListener.ReleaseOutcome outcome) {
		try {
			this.delegate.onReleased(lease, held, outcome);
		}
		catch (RuntimeException ex) {
			failed("onReleased", ex);
		}
	}

	void onRenewed(LockLease lease) {
		try {
			this.delegate.onRenewed(lease);
		}
		catch (RuntimeException ex) {
			failed("onRenewed", ex);
		}
	}

	void onRenewalFailed(LockLease lease, Throwable failure) {
		try {
			this.delegate.onRenewalFailed(lease, failure);
		}
		catch (RuntimeException ex) {
			failed("onRenewalFailed", ex);
		}
	}

	void onLost(LockLease lease, LockLostException reason) {
		try {
			this.delegate.onLost(lease, reason);
		}
		catch (RuntimeException ex) {
			failed("onLost", ex);
		}
	}

	private void failed(String callback, RuntimeException ex) {
		failed(this.delegate, callback, ex);
	}

	/**
	 * Log a listener's exception: a failing listener is logged and the lock carries on.
	 * @param listener the listener that threw
	 * @param callback the method that threw
	 * @param ex what it threw
	 */
	static void failed(LockListener listener, String callback, RuntimeException ex) {
		logger.warn("LockListener " + listener.getClass().getName() + "." + callback + " failed; ignored", ex);
	}

}

package io.distlock.engine;

import java.time.Duration;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.distlock.core.LockLease;
import io.distlock.core.LockListener;
import io.distlock.core.LockLostException;

/**
 * Calls a listener and keeps its exceptions away from the lock: observing a lock never changes
 * what the lock does.
 */
final class GuardedLockListener implements LockListener {

	private static final Log logger = LogFactory.getLog(GuardedLockListener.class);

	/** Told nothing: the listener failed to start following the acquisition. */
	private static final Acquisition NOTHING = new Acquisition() {

		@Override
		public void acquired(LockLease lease, Duration waited) {
		}

		@Override
		public void notAcquired(Duration waited, Throwable failure) {
		}

	};

	private final LockListener delegate;

	GuardedLockListener(LockListener delegate) {
		this.delegate = delegate;
	}

	@Override
	public boolean isNonBlocking() {
		try {
			return this.delegate.isNonBlocking();
		}
		catch (RuntimeException ex) {
			failed("isNonBlocking", ex);
			return false;
		}
	}

	@Override
	public void onAcquiring(String name, String key) {
		try {
			this.delegate.onAcquiring(name, key);
		}
		catch (RuntimeException ex) {
			failed("onAcquiring", ex);
		}
	}

	@Override
	public Acquisition onAsyncAcquiring(String name, String key) {
		Acquisition acquisition;
		try {
			acquisition = this.delegate.onAsyncAcquiring(name, key);
		}
		catch (RuntimeException ex) {
			failed("onAsyncAcquiring", ex);
			return NOTHING;
		}
		return new Acquisition() {

			@Override
			public void acquired(LockLease lease, Duration waited) {
				try {
					acquisition.acquired(lease, waited);
				}
				catch (RuntimeException ex) {
					failed("onAsyncAcquiring(...).acquired", ex);
				}
			}

			@Override
			public void notAcquired(Duration waited, Throwable failure) {
				try {
					acquisition.notAcquired(waited, failure);
				}
				catch (RuntimeException ex) {
					failed("onAsyncAcquiring(...).notAcquired", ex);
				}
			}

		};
	}

	@Override
	public void onAcquired(LockLease lease, Duration waited) {
		try {
			this.delegate.onAcquired(lease, waited);
		}
		catch (RuntimeException ex) {
			failed("onAcquired", ex);
		}
	}

	@Override
	public void onNotAcquired(String name, String key, Duration waited, Throwable failure) {
		try {
			this.delegate.onNotAcquired(name, key, waited, failure);
		}
		catch (RuntimeException ex) {
			failed("onNotAcquired", ex);
		}
	}

	@Override
	public void onReleased(LockLease lease, Duration held, ReleaseOutcome outcome) {
		try {
			this.delegate.onReleased(lease, held, outcome);
		}
		catch (RuntimeException ex) {
			failed("onReleased", ex);
		}
	}

	@Override
	public void onRenewed(LockLease lease) {
		try {
			this.delegate.onRenewed(lease);
		}
		catch (RuntimeException ex) {
			failed("onRenewed", ex);
		}
	}

	@Override
	public void onRenewalFailed(LockLease lease, Throwable failure) {
		try {
			this.delegate.onRenewalFailed(lease, failure);
		}
		catch (RuntimeException ex) {
			failed("onRenewalFailed", ex);
		}
	}

	@Override
	public void onLost(LockLease lease, LockLostException reason) {
		try {
			this.delegate.onLost(lease, reason);
		}
		catch (RuntimeException ex) {
			failed("onLost", ex);
		}
	}

	@Override
	public void onFallback(String name, String action) {
		try {
			this.delegate.onFallback(name, action);
		}
		catch (RuntimeException ex) {
			failed("onFallback", ex);
		}
	}

	// The listener guard: a failing listener is logged and the lock carries on.
	private void failed(String callback, RuntimeException ex) {
		logger.warn("LockListener " + this.delegate.getClass().getName() + "." + callback + " failed; ignored", ex);
	}

}

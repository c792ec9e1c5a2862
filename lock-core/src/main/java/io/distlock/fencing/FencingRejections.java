package io.distlock.fencing;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.distlock.core.LockLease;
import io.distlock.core.LockListener;
import io.distlock.core.StaleFencingTokenException;

/**
 * Tells the listener and the log of a refused write, the same way for every fenced store.
 */
final class FencingRejections {

	private static final Log logger = LogFactory.getLog(FencingRejections.class);

	private FencingRejections() {
	}

	static void tell(LockListener listener, LockLease lease, StaleFencingTokenException rejection) {
		logger.warn(rejection.getMessage());
		try {
			listener.onFencingRejected(lease, rejection);
		}
		catch (RuntimeException ex) {
			// The listener guard: metrics never change a business outcome, and the writer must
			// get the rejection, not the listener's failure.
			logger.warn("LockListener.onFencingRejected failed; ignored", ex);
		}
	}

}

package io.distlock.leader;

import java.time.Duration;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * A term of leadership as the election watches it: the lease's validity at the grant tells how
 * long ago the watchdog last confirmed a renewal, since each confirmation restores it.
 */
record Term(Leadership leadership, Duration validityAtGrant, Duration renewDeadline) {

	private static final Log logger = LogFactory.getLog(Term.class);

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

	/** How long ago the last renewal was confirmed, from the validity it left. */
	Duration sinceRenewal() {
		Duration since = this.validityAtGrant.minus(this.leadership.lease().remaining());
		return since.isNegative() ? Duration.ZERO : since;
	}

	/** Whether the term still holds: the lease valid, and renewed within the deadline. */
	boolean holds() {
		return this.leadership.lease().isValid() && sinceRenewal().compareTo(this.renewDeadline) < 0;
	}

}

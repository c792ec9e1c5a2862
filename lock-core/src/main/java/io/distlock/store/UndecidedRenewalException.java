package io.distlock.store;

import io.distlock.core.DistributedLockException;

/**
 * A renewal whose answers decide some of its grants but not others: a store of several nodes
 * ({@code Redlock}) where too few nodes answered for some grants while a quorum renewed the rest.
 * The engine treats it as a failed renewal of the undecided grants only, retried until their
 * validity deadline, and counts the grants {@link #renewed()} says were renewed; a store that
 * cannot tell its grants apart fails the whole renewal with another exception.
 */
public class UndecidedRenewalException extends DistributedLockException {

	private static final long serialVersionUID = 1L;

	private final boolean[] renewed;

	/**
	 * Create the exception.
	 * @param message what was undecided
	 * @param renewed for each grant of the renewal in order, whether it was renewed; the others
	 * are undecided, never refused (a refused grant is answered as not renewed)
	 */
	public UndecidedRenewalException(String message, boolean[] renewed) {
		super(message);
		this.renewed = renewed.clone();
	}

	/**
	 * Return, for each grant of the renewal in order, whether it was renewed.
	 * @return a copy of the decided renewals
	 */
	public boolean[] renewed() {
		return this.renewed.clone();
	}

}

package io.distlock.engine;

/**
 * What a waiter of a {@link Gate} gets when it is admitted.
 * @param handedOff the grant the last holder handed over, still held in the store, or
 * {@code null} if the waiter must ask the store itself
 * @param yieldNanos how long to let other processes try first before asking the store
 */
record Admission(Grant handedOff, long yieldNanos) {

	/** Admitted with nothing handed over and no yield. */
	static final Admission FREE = new Admission(null, 0);

}

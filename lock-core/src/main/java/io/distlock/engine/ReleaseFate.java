package io.distlock.engine;

/**
 * What becomes of a grant whose last hold is released, decided once per release by
 * {@link GrantReleaser} and then carried out.
 */
enum ReleaseFate {

	/**
	 * Hand the grant, still held in the store, to the next waiter of this process: no round
	 * trip, the next fencing token.
	 */
	HAND_OFF,

	/**
	 * The run of handoffs is spent and a waiter of this process could take the grant: one
	 * checkpoint script keeps it for that waiter unless another process waits, and otherwise
	 * releases it, and then the next waiter here lets the other process go first.
	 */
	CHECKPOINT,

	/**
	 * {@code holdAtLeast} since the grant has not passed: leave the key in the store until then
	 * (an owner-compared extension to exactly that).
	 */
	KEEP,

	/** Delete the grant in the store, owner-compared. */
	RELEASE,

	/**
	 * Delete the grant in the store; this process has had the lock for as long as the local
	 * handoff limits allow, so if another process waits, the next waiter here lets it go first.
	 */
	RELEASE_YIELDING;

	/**
	 * Return whether the next waiter of this process holds back when the store says that
	 * another process waits.
	 */
	boolean yieldsToOtherProcesses() {
		return this == CHECKPOINT || this == RELEASE_YIELDING;
	}

}

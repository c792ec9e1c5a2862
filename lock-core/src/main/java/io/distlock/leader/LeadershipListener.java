package io.distlock.leader;

/**
 * Told when this instance is granted a role and when it stops leading it.
 * <p>
 * Both callbacks run on the role's own notification thread ({@code distlock-leader-<role>-events}),
 * one at a time and in order, never on a thread of the lock store's driver. For a term, every
 * listener is told of the revocation, even those whose {@link #granted} threw. The role's lock is
 * released after the {@link #revoked} callbacks return, so no other instance is granted the role
 * while they still run on a graceful step-down: keep them short.
 */
public interface LeadershipListener {

	/**
	 * Called when this instance becomes the leader of a role. If it throws, the instance yields
	 * the role ({@link RevocationReason#GRANT_FAILED}): one that cannot start the role's work
	 * should not keep it from the others.
	 * @param leadership the term that begins
	 */
	default void granted(Leadership leadership) {
	}

	/**
	 * Called once when a term ends, whatever the reason.
	 * @param leadership the term that ends
	 * @param reason why it ends
	 */
	default void revoked(Leadership leadership, RevocationReason reason) {
	}

}

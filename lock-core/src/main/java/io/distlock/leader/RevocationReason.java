package io.distlock.leader;

/**
 * Why an instance stopped leading a role.
 */
public enum RevocationReason {

	/** The store no longer holds the role's lock: a renewal was refused or the lease ran out. */
	LOST,

	/**
	 * No renewal of the role's lock was confirmed within the renew deadline: the leader stepped
	 * down by itself, before its lease could expire, as the store may be out of reach.
	 */
	RENEW_DEADLINE,

	/** The leader gave the role up on request ({@link LeaderElection#yieldLeadership()}). */
	YIELDED,

	/** The election was stopped, for example on graceful shutdown; the lock was released. */
	STOPPED,

	/** A listener of the grant failed: an instance that cannot start the role's work yields it. */
	GRANT_FAILED

}

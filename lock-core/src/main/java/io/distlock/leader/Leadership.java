package io.distlock.leader;

import java.time.Instant;

import io.distlock.core.LockLease;

/**
 * One term of leadership of a role: granted with the role's lock, it ends when the lock is lost,
 * given up, or not renewed in time.
 * <p>
 * The {@link #epoch() epoch} is the fencing token of the grant: every later term of the role,
 * on any instance, has a larger one, so a resource that remembers the highest epoch it accepted
 * rejects the writes of a leader that was replaced (see {@code io.distlock.fencing}).
 *
 * @param role the role led
 * @param epoch the fencing token of the role's lock for this term
 * @param grantedAt when this instance was granted the role (wall clock, for display)
 * @param lease the lease of the role's lock, to pass to the fencing helpers; release it only
 * through {@link LeaderElection#yieldLeadership()}
 */
public record Leadership(String role, long epoch, Instant grantedAt, LockLease lease) {

	@Override
	public String toString() {
		return "Leadership[role='" + this.role + "', epoch=" + this.epoch + ", grantedAt=" + this.grantedAt + "]";
	}

}

package io.distlock.leader;

import org.springframework.context.ApplicationEvent;

/**
 * Published when this instance is granted a role, on the role's notification thread (never a
 * thread of the lock store's driver). The epoch is the grant's fencing token.
 */
public class LeadershipGrantedEvent extends ApplicationEvent {

	private static final long serialVersionUID = 1L;

	private final transient Leadership leadership;

	/**
	 * Create an event for a term that begins.
	 * @param leadership the term
	 */
	public LeadershipGrantedEvent(Leadership leadership) {
		super(leadership.role());
		this.leadership = leadership;
	}

	/**
	 * Return the role granted.
	 * @return the role
	 */
	public String getRole() {
		return this.leadership.role();
	}

	/**
	 * Return the epoch of the term: the fencing token of the role's lock.
	 * @return the epoch
	 */
	public long getEpoch() {
		return this.leadership.epoch();
	}

	/**
	 * Return the term, with its lease for fenced writes.
	 * @return the term
	 */
	public Leadership getLeadership() {
		return this.leadership;
	}

}

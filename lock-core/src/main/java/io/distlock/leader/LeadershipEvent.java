package io.distlock.leader;

import org.springframework.context.ApplicationEvent;

/**
 * A change of this instance's leadership of a role: {@link LeadershipGrantedEvent} when a term
 * begins, {@link LeadershipRevokedEvent} when it ends. Listen to this type to hear of both.
 */
public abstract class LeadershipEvent extends ApplicationEvent {

	private static final long serialVersionUID = 1L;

	private final transient Leadership leadership;

	/**
	 * Create an event for a term.
	 * @param leadership the term
	 */
	protected LeadershipEvent(Leadership leadership) {
		super(leadership.role());
		this.leadership = leadership;
	}

	/**
	 * Return the role.
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

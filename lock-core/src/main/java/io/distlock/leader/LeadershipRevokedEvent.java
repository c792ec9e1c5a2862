package io.distlock.leader;

import org.springframework.context.ApplicationEvent;

/**
 * Published once when a term of leadership of this instance ends, whatever the reason, even if
 * a listener of its {@link LeadershipGrantedEvent} threw; on the role's notification thread.
 */
public class LeadershipRevokedEvent extends ApplicationEvent {

	private static final long serialVersionUID = 1L;

	private final transient Leadership leadership;

	private final RevocationReason reason;

	/**
	 * Create an event for a term that ends.
	 * @param leadership the term
	 * @param reason why it ends
	 */
	public LeadershipRevokedEvent(Leadership leadership, RevocationReason reason) {
		super(leadership.role());
		this.leadership = leadership;
		this.reason = reason;
	}

	/**
	 * Return the role revoked.
	 * @return the role
	 */
	public String getRole() {
		return this.leadership.role();
	}

	/**
	 * Return the epoch of the term that ends.
	 * @return the epoch
	 */
	public long getEpoch() {
		return this.leadership.epoch();
	}

	/**
	 * Return the term that ends.
	 * @return the term
	 */
	public Leadership getLeadership() {
		return this.leadership;
	}

	/**
	 * Return why the term ends.
	 * @return the reason
	 */
	public RevocationReason getReason() {
		return this.reason;
	}

}

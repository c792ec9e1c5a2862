package io.distlock.leader;

/**
 * Published once when a term of leadership of this instance ends, whatever the reason, even if
 * a listener of its {@link LeadershipGrantedEvent} threw; on the role's notification thread.
 */
public class LeadershipRevokedEvent extends LeadershipEvent {

	private static final long serialVersionUID = 1L;

	private final RevocationReason reason;

	/**
	 * Create an event for a term that ends.
	 * @param leadership the term
	 * @param reason why it ends
	 */
	public LeadershipRevokedEvent(Leadership leadership, RevocationReason reason) {
		super(leadership);
		this.reason = reason;
	}

	/**
	 * Return why the term ends.
	 * @return the reason
	 */
	public RevocationReason getReason() {
		return this.reason;
	}

}

package io.distlock.leader;

/**
 * Published when this instance is granted a role, on the role's notification thread (never a
 * thread of the lock store's driver). The epoch is the grant's fencing token.
 */
public class LeadershipGrantedEvent extends LeadershipEvent {

	private static final long serialVersionUID = 1L;

	/**
	 * Create an event for a term that begins.
	 * @param leadership the term
	 */
	public LeadershipGrantedEvent(Leadership leadership) {
		super(leadership);
	}

}

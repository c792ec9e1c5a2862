package io.distlock.leader;

import org.springframework.context.ApplicationEventPublisher;

/**
 * Publishes {@link LeadershipGrantedEvent} and {@link LeadershipRevokedEvent}, on the role's
 * notification thread.
 */
public class LeadershipEventPublisher implements LeadershipListener {

	private final ApplicationEventPublisher publisher;

	/**
	 * Create a listener that publishes through the given publisher.
	 * @param publisher the application's event publisher
	 */
	public LeadershipEventPublisher(ApplicationEventPublisher publisher) {
		this.publisher = publisher;
	}

	@Override
	public void granted(Leadership leadership) {
		this.publisher.publishEvent(new LeadershipGrantedEvent(leadership));
	}

	@Override
	public void revoked(Leadership leadership, RevocationReason reason) {
		this.publisher.publishEvent(new LeadershipRevokedEvent(leadership, reason));
	}

}

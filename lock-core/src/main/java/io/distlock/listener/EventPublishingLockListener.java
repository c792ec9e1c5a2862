package io.distlock.listener;

import org.springframework.context.ApplicationEventPublisher;

import io.distlock.core.LockLease;
import io.distlock.core.LockListener;
import io.distlock.core.LockLostEvent;
import io.distlock.core.LockLostException;

/**
 * Publishes a {@link LockLostEvent} when a lock is lost while held.
 */
public class EventPublishingLockListener implements LockListener {

	private final ApplicationEventPublisher publisher;

	/**
	 * Create a listener that publishes through the given publisher.
	 * @param publisher the application's event publisher
	 */
	public EventPublishingLockListener(ApplicationEventPublisher publisher) {
		this.publisher = publisher;
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Yes: it publishes only on {@link #onLost}, which is never called on those threads.
	 */
	@Override
	public boolean isNonBlocking() {
		return true;
	}

	@Override
	public void onLost(LockLease lease, LockLostException reason) {
		this.publisher.publishEvent(new LockLostEvent(lease, reason));
	}

}

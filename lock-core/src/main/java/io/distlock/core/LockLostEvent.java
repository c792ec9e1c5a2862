package io.distlock.core;

import org.springframework.context.ApplicationEvent;

/**
 * Published once when a lock is lost while held, so that an application can react in one
 * place ({@code @EventListener}), for example by stopping work or raising an alert.
 */
public class LockLostEvent extends ApplicationEvent {

	private static final long serialVersionUID = 1L;

	private final transient LockLease lease;

	private final LockLostException reason;

	/**
	 * Create an event for a lost lease.
	 * @param lease the lost lease
	 * @param reason the exception that describes the loss
	 */
	public LockLostEvent(LockLease lease, LockLostException reason) {
		super(lease);
		this.lease = lease;
		this.reason = reason;
	}

	/**
	 * Return the lost lease.
	 * @return the lease
	 */
	public LockLease getLease() {
		return this.lease;
	}

	/**
	 * Return the exception that describes the loss, as its holder receives it.
	 * @return the reason
	 */
	public LockLostException getReason() {
		return this.reason;
	}

}

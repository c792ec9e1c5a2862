package io.distlock.listener;

import java.time.Duration;
import java.util.List;

import io.distlock.core.LockLease;
import io.distlock.core.LockListener;
import io.distlock.core.LockLostException;
import io.distlock.core.StaleFencingTokenException;

/**
 * Tells several listeners, in order. Registries guard each call, so one failing listener does
 * not keep the others from being told.
 */
public final class CompositeLockListener implements LockListener {

	private final List<LockListener> listeners;

	/**
	 * Create a composite of the given listeners.
	 * @param listeners the listeners, called in this order
	 */
	public CompositeLockListener(List<? extends LockListener> listeners) {
		this.listeners = List.copyOf(listeners);
	}

	/**
	 * Return a listener for the given ones: {@link LockListener#NONE} for none, the listener
	 * itself for one, a composite otherwise.
	 * @param listeners the listeners
	 * @return one listener that tells them all
	 */
	public static LockListener of(List<? extends LockListener> listeners) {
		return switch (listeners.size()) {
			case 0 -> LockListener.NONE;
			case 1 -> listeners.get(0);
			default -> new CompositeLockListener(listeners);
		};
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Only if every listener it tells is.
	 */
	@Override
	public boolean isNonBlocking() {
		return this.listeners.stream().allMatch(LockListener::isNonBlocking);
	}

	@Override
	public void onAcquiring(String name, String key) {
		this.listeners.forEach((listener) -> listener.onAcquiring(name, key));
	}

	@Override
	public Acquisition onAsyncAcquiring(String name, String key) {
		List<Acquisition> acquisitions = this.listeners.stream()
			.map((listener) -> listener.onAsyncAcquiring(name, key))
			.toList();
		return new Acquisition() {

			@Override
			public void acquired(LockLease lease, Duration waited) {
				acquisitions.forEach((acquisition) -> acquisition.acquired(lease, waited));
			}

			@Override
			public void notAcquired(Duration waited, Throwable failure) {
				acquisitions.forEach((acquisition) -> acquisition.notAcquired(waited, failure));
			}

		};
	}

	@Override
	public void onAcquired(LockLease lease, Duration waited) {
		this.listeners.forEach((listener) -> listener.onAcquired(lease, waited));
	}

	@Override
	public void onNotAcquired(String name, String key, Duration waited, Throwable failure) {
		this.listeners.forEach((listener) -> listener.onNotAcquired(name, key, waited, failure));
	}

	@Override
	public void onReleased(LockLease lease, Duration held, ReleaseOutcome outcome) {
		this.listeners.forEach((listener) -> listener.onReleased(lease, held, outcome));
	}

	@Override
	public void onRenewed(LockLease lease) {
		this.listeners.forEach((listener) -> listener.onRenewed(lease));
	}

	@Override
	public void onRenewalFailed(LockLease lease, Throwable failure) {
		this.listeners.forEach((listener) -> listener.onRenewalFailed(lease, failure));
	}

	@Override
	public void onLost(LockLease lease, LockLostException reason) {
		this.listeners.forEach((listener) -> listener.onLost(lease, reason));
	}

	@Override
	public void onFencingRejected(LockLease lease, StaleFencingTokenException rejection) {
		this.listeners.forEach((listener) -> listener.onFencingRejected(lease, rejection));
	}

	@Override
	public void onFallback(String name, String action) {
		this.listeners.forEach((listener) -> listener.onFallback(name, action));
	}

}

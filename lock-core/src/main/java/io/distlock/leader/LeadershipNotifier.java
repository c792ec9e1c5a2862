package io.distlock.leader;

import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Tells a role's listeners of its grants and revocations, one at a time and in order, on the
 * role's notification thread: never the store driver's, nor the election's, so that a slow
 * listener delays neither the lock's renewal nor the election's step-down.
 */
final class LeadershipNotifier {

	private static final Log logger = LogFactory.getLog(LeadershipNotifier.class);

	private final String role;

	private final List<LeadershipListener> listeners;

	private final ExecutorService executor;

	LeadershipNotifier(String role, List<LeadershipListener> listeners) {
		this.role = role;
		this.listeners = List.copyOf(listeners);
		this.executor = Executors.newSingleThreadExecutor(ElectionLoop.daemon("distlock-leader-" + role + "-events"));
	}

	/** Tell every listener of the grant; {@code onFailure} runs once if one of them threw. */
	void granted(Leadership leadership, Runnable onFailure) {
		this.executor.execute(() -> {
			boolean failed = false;
			for (LeadershipListener listener : this.listeners) {
				try {
					listener.granted(leadership);
				}
				catch (RuntimeException ex) {
					logger.error("Listener " + listener + " failed on the grant of role '" + this.role
							+ "' with epoch " + leadership.epoch() + "; yielding the role", ex);
					failed = true;
				}
			}
			if (failed) {
				onFailure.run();
			}
		});
	}

	/** Tell every listener of the revocation, whatever one throws, then run {@code after}. */
	void revoked(Leadership leadership, RevocationReason reason, Runnable after) {
		this.executor.execute(() -> {
			for (LeadershipListener listener : this.listeners) {
				try {
					listener.revoked(leadership, reason);
				}
				catch (RuntimeException ex) {
					// Every listener hears of the revocation, and the lock is released, whatever one throws.
					logger.error("Listener " + listener + " failed on the revocation of role '" + this.role
							+ "' with epoch " + leadership.epoch(), ex);
				}
			}
			after.run();
		});
	}

	/** Run a task after every notification queued so far. */
	void then(Runnable task) {
		this.executor.execute(task);
	}

	void close() {
		this.executor.shutdown();
	}

}

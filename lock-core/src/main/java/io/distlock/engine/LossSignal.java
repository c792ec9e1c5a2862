package io.distlock.engine;

import java.util.List;
import java.util.function.Consumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.distlock.core.LockLostException;
import io.distlock.core.LossStatistics;

/**
 * Tells a holder, exactly once, that its lock was lost: the grant turns LOST and leaves its local
 * gate at once, where the loss is found; the loss is logged at ERROR and counted, and the
 * listener and every {@code onLost} callback run where user code may (see
 * {@link Continuations}), never on the driver's or the watchdog's thread.
 */
final class LossSignal {

	private static final Log logger = LogFactory.getLog(LossSignal.class);

	private final GuardedLockListener listener;

	private final LossCounter counter = new LossCounter();

	private final Continuations continuations;

	private final Gate.Table gates;

	LossSignal(GuardedLockListener listener, Continuations continuations, Gate.Table gates) {
		this.listener = listener;
		this.continuations = continuations;
		this.gates = gates;
	}

	LossStatistics statistics() {
		return this.counter.snapshot();
	}

	/**
	 * Declare a held grant lost; does nothing if it was already released or lost.
	 */
	void declare(HeldGrant held, String reason) {
		List<Consumer<? super LockLostException>> callbacks = held.markLost(reason, HeldGrant.State.ACTIVE);
		if (callbacks != null) {
			// A lost grant must not keep its key from the other threads of this process: they go
			// to the store now, as other processes' threads may already have. Its holds keep the
			// gate in the map until they are released.
			Gate gate = this.gates.find(held.gateKey());
			if (gate != null) {
				gate.vacate(held);
			}
			tell(held, callbacks);
		}
	}

	/**
	 * Declare lost a grant whose release found it gone from the store; does nothing if the
	 * watchdog declared the loss first. The release leaves the gate itself.
	 */
	void declareFoundOnRelease(HeldGrant held, String reason) {
		List<Consumer<? super LockLostException>> callbacks = held.markLost(reason, HeldGrant.State.RELEASING);
		if (callbacks != null) {
			tell(held, callbacks);
		}
	}

	private void tell(HeldGrant held, List<Consumer<? super LockLostException>> callbacks) {
		Grant grant = held.grant();
		LockLostException lost = held.lostException();
		boolean told = !held.isUntold();
		if (told) {
			this.counter.recordLoss();
			logger.error(lost.getMessage());
		}
		else {
			// Granted after its acquisition was given up: nobody held it, so nothing was lost.
			logger.debug(lost.getMessage() + " (granted after its acquisition was given up)");
		}
		this.continuations.run(held.executor(), () -> {
			if (told) {
				this.listener.onLost(held.lease(), lost);
			}
			for (Consumer<? super LockLostException> callback : callbacks) {
				run(grant, callback, lost);
			}
		});
	}

	void addCallback(HeldGrant held, Consumer<? super LockLostException> callback) {
		Grant grant = held.grant();
		if (!held.addLostCallback(callback)) {
			LockLostException lost = held.lostException();
			this.continuations.run(held.executor(), () -> run(grant, callback, lost));
		}
	}

	private static void run(Grant grant, Consumer<? super LockLostException> callback, LockLostException lost) {
		try {
			callback.accept(lost);
		}
		catch (RuntimeException ex) {
			// Lost-lease handling: one failing callback must not keep the others from running.
			logger.warn("onLost callback for lock for key '" + grant.key() + "' failed; ignored", ex);
		}
	}

}

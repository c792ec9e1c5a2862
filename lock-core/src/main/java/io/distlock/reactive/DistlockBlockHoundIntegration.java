package io.distlock.reactive;

import java.util.List;

import reactor.blockhound.BlockHound;
import reactor.blockhound.integration.BlockHoundIntegration;

/**
 * Tells <a href="https://github.com/reactor/BlockHound">BlockHound</a> which waits inside
 * distlock are not blocking calls, so that an application that installs BlockHound in its tests
 * sees its own blocking calls and not these. BlockHound finds it through
 * {@link java.util.ServiceLoader}; nothing needs to be registered.
 * <p>
 * There is one: the local gate of a key guards its queue of waiters with a
 * {@link java.util.concurrent.locks.ReentrantLock} that is held only to update a few fields,
 * never around I/O and never while a future is completed. A Lettuce event loop that completes a
 * store call takes it; when another thread is inside one of those few lines, the event loop may
 * park for about as long, which BlockHound reports as a blocking call. That wait is bounded by a
 * handful of field updates, as a contended {@code ConcurrentHashMap} bin is, so it is allowed
 * inside the gate's methods that take the lock, and nowhere else.
 */
public final class DistlockBlockHoundIntegration implements BlockHoundIntegration {

	static final String GATE = "io.distlock.engine.Gate";

	/** The gate's methods that take its lock. */
	static final List<String> GATE_METHODS = List.of("tryEnter", "enter", "withdraw", "hasWaiterAcceptingHandoff",
			"signalReleased", "clearReleaseSignals", "awaitRelease", "admitNext");

	@Override
	public void applyTo(BlockHound.Builder builder) {
		for (String method : GATE_METHODS) {
			builder.allowBlockingCallsInside(GATE, method);
		}
	}

}

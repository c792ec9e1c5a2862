package io.distlock.reactive;

import java.util.List;
import java.util.Map;

import reactor.blockhound.BlockHound;
import reactor.blockhound.integration.BlockHoundIntegration;

/**
 * Tells <a href="https://github.com/reactor/BlockHound">BlockHound</a> which waits inside
 * distlock are not blocking calls, so that an application that installs BlockHound in its tests
 * sees its own blocking calls and not these. BlockHound finds it through
 * {@link java.util.ServiceLoader}; nothing needs to be registered.
 * <p>
 * There are two kinds, each a lock held for a few field updates, never around I/O and never
 * while a future is completed:
 * <ul>
 * <li>The local gate of a key guards its queue of waiters with a
 * {@link java.util.concurrent.locks.ReentrantLock}. A Lettuce event loop that completes a store
 * call takes it; when another thread is inside one of those few lines, the event loop may park
 * for about as long, which BlockHound reports as a blocking call. It is allowed inside the
 * gate's methods that take the lock.</li>
 * <li>A wait's timeout or a fixed lease's deadline check that is cancelled, because the grant
 * came or the hold ended first, is removed from its timer's queue, which takes that queue's lock
 * for one heap update (Reactor allows the same for its own scheduled tasks). It is allowed inside
 * the two methods that cancel them.</li>
 * </ul>
 * That wait is bounded by a handful of field updates, as a contended {@code ConcurrentHashMap}
 * bin is, so it is allowed there and nowhere else.
 */
public final class DistlockBlockHoundIntegration implements BlockHoundIntegration {

	static final String GATE = "io.distlock.engine.Gate";

	/** The gate's methods that take its lock. */
	static final List<String> GATE_METHODS = List.of("tryEnter", "enter", "withdraw", "hasWaiterAcceptingHandoff",
			"pickNext");

	/** The methods that cancel a scheduled timeout or deadline check, by class. */
	static final Map<String, String> TIMER_CANCELS = Map.of("io.distlock.engine.HoldWait", "cancelTimer",
			"io.distlock.engine.Watchdog", "unwatch");

	@Override
	public void applyTo(BlockHound.Builder builder) {
		for (String method : GATE_METHODS) {
			builder.allowBlockingCallsInside(GATE, method);
		}
		TIMER_CANCELS.forEach(builder::allowBlockingCallsInside);
	}

}

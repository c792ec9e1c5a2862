package io.distlock.engine;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * A grant bound to the thread that owns it ({@link ThreadHolds}): its first hold, and the holds
 * that thread took through {@code DistLock.lock()} (touched only by that thread; sized for the
 * usual single hold).
 */
record ThreadBinding(HeldLease first, Deque<HeldLease> lockHolds) {

	ThreadBinding(HeldLease first) {
		this(first, new ArrayDeque<>(1));
	}

	HeldGrant held() {
		return this.first.held();
	}

	Grant grant() {
		return this.first.grant();
	}

}

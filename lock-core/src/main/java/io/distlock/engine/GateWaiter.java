package io.distlock.engine;

import java.util.concurrent.CompletableFuture;

/**
 * One acquisition waiting to pass a {@link Gate}.
 * @param acceptsHandoff whether it can take a grant handed over by the last holder
 * @param admission completed when it is admitted; never completed for a waiter that was
 * withdrawn
 */
record GateWaiter(boolean acceptsHandoff, CompletableFuture<Admission> admission) {

	/** Whether a waiter can take a grant handed over by the last holder. */
	enum HandedGrant {

		/** It can: it asks for an exclusive grant the watchdog renews. */
		ACCEPTED,

		/** It cannot: it must ask the store itself. */
		REFUSED

	}

}

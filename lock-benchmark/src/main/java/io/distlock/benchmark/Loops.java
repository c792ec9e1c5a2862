package io.distlock.benchmark;

/**
 * The contenders' grant loops of one scenario, ready to start: threads for blocking contenders
 * ({@link GrantLoops}), subscribers for reactive ones ({@link SubscriberLoops}).
 */
interface Loops {

	/**
	 * Start every loop.
	 */
	void go();

	/**
	 * Stop the loops once each has finished its current grant.
	 * @return each loop's latencies in nanoseconds, one per grant
	 * @throws InterruptedException if interrupted while waiting for them
	 */
	long[][] stop() throws InterruptedException;

}

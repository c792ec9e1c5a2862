package io.distlock.core;

/**
 * How a registry waits for a lock that another process holds.
 */
public enum WaitStrategy {

	/**
	 * Wake up when the holder releases the lock, through one shared pub/sub subscription per
	 * registry; retry also after the holder's remaining lease or the retry interval, whichever
	 * comes first, in case a notification is lost. The holder publishes only when someone waits.
	 */
	PUB_SUB,

	/**
	 * Retry after the holder's remaining lease or the jittered retry interval, whichever comes
	 * first. No subscription, and releases publish nothing (for a Redis that refuses
	 * {@code PUBLISH}); handoffs are slower. A waiter still marks that it waits, so fair locks
	 * keep arrival order and a waiting writer holds back new readers. Use one strategy for every
	 * process on the same keys: a polling process does not wake pub/sub waiters.
	 */
	POLLING

}

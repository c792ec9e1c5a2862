package io.distlock.coroutines

import io.distlock.core.LockLease
import io.distlock.reactive.ReactiveLockContext
import kotlinx.coroutines.reactor.awaitSingle
import kotlinx.coroutines.reactor.awaitSingleOrNull

/**
 * The leases a coroutine holds, read from its coroutine context: the counterpart of
 * [io.distlock.core.LockContext] (bound to a thread) and of [ReactiveLockContext] (the Reactor
 * `Context`) for code that runs inside [withLock], [lockedFlow] or a `@DistributedLock` `suspend`
 * function or `Flow`, so that it can pass the fencing token to its write.
 *
 * ```
 * val token = CoroutineLockContext.current().fencingToken()
 * ```
 *
 * The leases travel in the coroutine context's `ReactorContext` element (kotlinx-coroutines-reactor),
 * so they are seen by the coroutine that holds the lock and by every coroutine it starts as its
 * child (`launch`, `async`, `withContext`), but not by a coroutine started in another scope.
 * None of these calls suspends or talks to Redis.
 */
public object CoroutineLockContext {

	/**
	 * Returns the innermost lease the calling coroutine holds.
	 * @throws IllegalStateException if it holds no lock
	 */
	public suspend fun current(): LockLease = find() ?: throw IllegalStateException(
		"The calling coroutine holds no distributed lock; call CoroutineLockContext.current() inside " +
			"withLock, lockedFlow or a @DistributedLock suspend function or Flow",
	)

	/**
	 * Returns the innermost lease the calling coroutine holds, or `null` if it holds none.
	 */
	public suspend fun find(): LockLease? = ReactiveLockContext.find().awaitSingleOrNull()

	/**
	 * Returns every lease the calling coroutine holds, outermost first; empty if it holds none.
	 */
	public suspend fun all(): List<LockLease> = ReactiveLockContext.all().awaitSingle()
}

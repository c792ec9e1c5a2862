package io.distlock.coroutines

import io.distlock.core.LockLease
import io.distlock.core.LockRegistry
import io.distlock.core.LockRequest
import io.distlock.reactive.ReactiveLocks
import kotlinx.coroutines.Job
import kotlinx.coroutines.currentCoroutineContext
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.emitAll
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.reactive.asFlow
import kotlinx.coroutines.reactor.asFlux
import kotlinx.coroutines.reactor.awaitSingle
import kotlinx.coroutines.reactor.mono
import java.time.Duration

/**
 * Holds the lock described by [request] while [block] runs, suspending rather than blocking
 * while it waits: the lock is taken with [LockRegistry.acquireAsync], within the request's wait
 * time, and released (with [LockLease.releaseAsync]) when [block] returns or throws.
 *
 * - Not acquired within the wait time: throws [io.distlock.core.LockAcquisitionException] and
 *   [block] is not called.
 * - Lost while held (renewal refused, key gone, validity passed): [block] is cancelled at once
 *   and this function throws [io.distlock.core.LockLostException]; a loss found by the release
 *   itself throws it too, since what [block] did may have overlapped another holder.
 * - The calling coroutine is cancelled: while waiting, the place in line is given up; while
 *   holding, [block] is cancelled and the lock released. No key is left behind either way.
 *
 * [block] runs in the caller's coroutine context (its dispatcher, its elements) with the lease in
 * it, where [CoroutineLockContext.current] finds it. A `withLock` (or a `@DistributedLock`
 * suspend function) called inside [block] on the same key of the same registry re-enters this
 * hold, with no round trip to Redis.
 *
 * ```
 * val order = registry.withLock(LockRequest.of("stock:$id").waitTime(Duration.ofSeconds(2))) { lease ->
 *     orders.reserve(id, quantity, lease.fencingToken())
 * }
 * ```
 *
 * @param request what to lock, the wait time, the lease time and fairness
 * @param block called with the lease once the lock is granted
 * @return what [block] returned
 */
public suspend fun <T> LockRegistry.withLock(request: LockRequest, block: suspend (LockLease) -> T): T {
	// mono {} refuses a Job: the hold's subscription, not the caller's job, owns the block's
	// coroutine, and cancelling the caller cancels that subscription.
	val context = currentCoroutineContext().minusKey(Job)
	val held = ReactiveLocks.withLock(this, request) { lease -> mono(context) { Returned(block(lease)) } }
	return held.awaitSingle().value
}

/**
 * Holds the lock on [key] while [block] runs, waiting at most [waitTime] for it (none by
 * default); see [withLock] for what happens when it is not acquired, lost or cancelled.
 *
 * ```
 * registry.withLock("nightly-report") { report.rebuild() }
 * ```
 *
 * @param key the key to lock
 * @param waitTime how long to wait for the lock, [Duration.ZERO] to try once
 * @param block called with the lease once the lock is granted
 * @return what [block] returned
 */
public suspend fun <T> LockRegistry.withLock(
	key: String,
	waitTime: Duration = Duration.ZERO,
	block: suspend (LockLease) -> T,
): T = withLock(LockRequest.of(key).waitTime(waitTime), block)

/**
 * A [Flow] that takes the lock described by [request] each time it is collected, then collects
 * the flow [block] returns for the lease, and holds the lock until that flow completes, fails or
 * its collector is cancelled. Nothing is locked until a collector collects.
 *
 * Not acquired within the wait time, the flow fails with
 * [io.distlock.core.LockAcquisitionException] and [block] is not called; lost while collected,
 * the upstream is cancelled and the flow fails with [io.distlock.core.LockLostException]. The
 * upstream runs in the collector's context with the lease in it ([CoroutineLockContext.current]).
 *
 * ```
 * val lines: Flow<String> = registry.lockedFlow(LockRequest.of("export").waitTime(Duration.ofSeconds(1))) { lease ->
 *     exporter.lines(lease.fencingToken())
 * }
 * ```
 *
 * @param request what to lock, the wait time, the lease time and fairness
 * @param block called with the lease once the lock is granted, for the flow to collect under it
 * @return a flow that locks on each collection
 */
public fun <T : Any> LockRegistry.lockedFlow(request: LockRequest, block: (LockLease) -> Flow<T>): Flow<T> {
	val registry = this
	return flow {
		val context = currentCoroutineContext().minusKey(Job)
		emitAll(ReactiveLocks.withLockMany(registry, request) { lease -> block(lease).asFlux(context) }.asFlow())
	}
}

/**
 * This flow, holding the lock described by [request] from [registry] while it is collected; see
 * [lockedFlow].
 *
 * ```
 * events.withLock(registry, LockRequest.of("projection").waitTime(Duration.ofSeconds(5))).collect { apply(it) }
 * ```
 *
 * @param registry the registry to lock with
 * @param request what to lock, the wait time, the lease time and fairness
 * @return a flow that locks on each collection
 */
public fun <T : Any> Flow<T>.withLock(registry: LockRegistry, request: LockRequest): Flow<T> {
	val upstream = this
	return registry.lockedFlow(request) { upstream }
}

/**
 * What the block returned, so that a `null` result is a value and not an empty `Mono`.
 */
private class Returned<T>(val value: T)

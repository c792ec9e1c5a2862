package io.distlock.coroutines

import io.distlock.core.LockLease
import io.distlock.core.LockRegistry
import io.distlock.core.LockRequest
import io.distlock.core.LockLostException
import io.distlock.reactive.ReactiveLockContext
import io.distlock.reactive.ReactiveLocks
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.Job
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.async
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.currentCoroutineContext
import kotlinx.coroutines.future.await
import kotlinx.coroutines.isActive
import kotlinx.coroutines.reactor.ReactorContext
import kotlinx.coroutines.withContext
import reactor.util.context.Context
import java.util.concurrent.atomic.AtomicReference
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.emitAll
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.reactive.asFlow
import kotlinx.coroutines.reactor.asFlux
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
 * The lock is released only once [block] has finished, its `finally` blocks included, and this
 * function returns (or throws, or completes its cancellation) only once the store has answered
 * the release, so that the next holder can have the lock when the caller resumes.
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
	val outer: Context = currentCoroutineContext()[ReactorContext]?.context ?: Context.empty()
	val reentered = ReactiveLockContext.reentrant(outer, this, request.key())
	if (reentered != null) {
		// The calling coroutine already holds this key from this registry: the outer hold renews
		// and releases it.
		return block(reentered)
	}
	// Cancelling the wait cancels the future: the place in line is given up, and a grant that
	// loses the race to the cancellation is released by the registry.
	val acquisition = acquireAsync(request).toCompletableFuture()
	val lease = try {
		acquisition.await()
	}
	catch (ex: CancellationException) {
		// A grant that won the race completed the future, but await drops a value it can no
		// longer deliver to a cancelled coroutine: release it, or nobody would, and the watchdog
		// would renew it for good.
		if (acquisition.isDone && !acquisition.isCancelled && !acquisition.isCompletedExceptionally) {
			release(acquisition.join(), ex)
		}
		throw ex
	}
	val lost = AtomicReference<LockLostException?>()
	val result = try {
		coroutineScope {
			val body = async(ReactorContext(ReactiveLockContext.with(outer, this@withLock, lease))) { block(lease) }
			lease.onLost { ex ->
				if (lost.compareAndSet(null, ex)) {
					body.cancel(CancellationException("Lock for key '" + lease.key() + "' was lost", ex))
				}
			}
			body.await()
		}
	}
	catch (ex: Throwable) {
		// The block has finished (its finally blocks included) before the lock is released.
		val loss = lost.get()
		val failure = if (loss != null && ex is CancellationException && currentCoroutineContext().isActive) loss else ex
		release(lease, failure)
		throw failure
	}
	release(lease, null)
	// Lost while the block ran, though it finished before the cancellation reached it: what it
	// did may have overlapped another holder.
	lost.get()?.let { throw it }
	return result
}

/**
 * Releases the lease and waits for the store's answer, even in a cancelled coroutine, so that
 * the caller resumes once the next holder can have the lock. After a failure, a loss found by
 * the release is added to it; after success, it is thrown.
 */
private suspend fun release(lease: LockLease, failure: Throwable?) {
	withContext(NonCancellable) {
		try {
			lease.releaseAsync().await()
		}
		catch (ex: LockLostException) {
			if (failure == null) {
				throw ex
			}
			if (failure !is LockLostException) {
				failure.addSuppressed(ex)
			}
		}
	}
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

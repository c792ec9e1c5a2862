package io.distlock.coroutines

import io.distlock.core.LockContext

/**
 * Runs [block], a blocking call that reads the thread's [LockContext], with the calling
 * coroutine's innermost lease bound to the calling thread while it runs: the fenced helpers that
 * take their token from `LockContext` (`JdbcFencing`, `RedisFencing`, the flush of an entity
 * with `FencedEntityListener`) then write with the coroutine's token.
 *
 * ```
 * registry.withLock(LockRequest.of("stock:$id").waitTime(Duration.ofSeconds(2))) {
 *     withContext(Dispatchers.IO) {
 *         withLockContext { transactions.execute { fencing.advance("stock:$id"); stock.reserve(id) } }
 *     }
 * }
 * ```
 *
 * [block] does not suspend, so it runs from start to end on the one thread the lease is bound
 * to; the lease is unbound when it returns or throws. The reactive helpers (`R2dbcFencing`,
 * `ReactiveRedisFencing`) need none of this: a `Mono` awaited in a coroutine
 * (`awaitSingleOrNull()`) sees the coroutine's leases in its Reactor `Context`.
 *
 * @param block the blocking call
 * @return what [block] returned
 * @throws IllegalStateException if the calling coroutine holds no lock; [block] is not called
 */
public suspend fun <T> withLockContext(block: () -> T): T {
	val lease = CoroutineLockContext.current()
	LockContext.bind(lease)
	try {
		return block()
	}
	finally {
		LockContext.unbind(lease)
	}
}

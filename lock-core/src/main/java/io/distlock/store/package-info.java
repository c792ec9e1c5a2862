/**
 * The store SPI: what the lock engine asks of the place where grants live ({@link LockStore}),
 * asynchronous and owner-compared, with the kinds of lock ({@link LockMode}). Implemented for
 * one Redis ({@code RedisLockStore}), for Redlock, and in memory by {@code distlock-test}.
 */
package io.distlock.store;

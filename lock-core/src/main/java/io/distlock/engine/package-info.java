/**
 * The store-independent lock engine: local per-key gates, reentrancy, waiting, the watchdog and
 * the loss signal, over a {@link io.distlock.engine.LockStore}.
 */
package io.distlock.engine;

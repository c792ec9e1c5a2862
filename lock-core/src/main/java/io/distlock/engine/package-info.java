/**
 * The store-independent lock engine: local per-key gates, reentrancy, waiting, the watchdog and
 * the loss signal, over a {@link io.distlock.store.LockStore}.
 */
package io.distlock.engine;

import io.distlock.store.LockStore;

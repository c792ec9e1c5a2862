/**
 * The AOP advice behind {@link io.distlock.annotation.DistributedLock}: parsing and checking the
 * annotation at startup, evaluating keys per call, taking and releasing the locks, and refusing
 * to commit a transaction whose lock was lost.
 */
package io.distlock.interceptor;

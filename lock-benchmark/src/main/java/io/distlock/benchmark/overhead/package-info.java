/**
 * JMH benchmarks of what {@code @DistributedLock} costs over a direct registry call, on an
 * in-memory store so that only the interception is measured.
 */
package io.distlock.benchmark.overhead;

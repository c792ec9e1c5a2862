/**
 * Side-by-side lock benchmarks: distlock and its peers on one Redis, interleaved.
 */
package io.distlock.benchmark;

/**
 * A lock registry that lives inside one JVM, with the same semantics as the Redis one, for
 * users' unit tests.
 */
package io.distlock.test.memory;

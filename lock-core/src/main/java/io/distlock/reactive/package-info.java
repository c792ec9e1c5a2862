/**
 * Distributed locks for Reactor: a {@code Mono} or {@code Flux} that holds a lock from its
 * subscription until it terminates or is cancelled, without blocking a thread, and the lease in
 * the Reactor {@code Context}. Needs {@code io.projectreactor:reactor-core} on the classpath.
 */
@NullMarked
package io.distlock.reactive;

import org.jspecify.annotations.NullMarked;

/**
 * A reactive inventory on WebFlux, R2DBC and PostgreSQL that never oversells: a
 * {@code @DistributedLock} on a {@code Mono} method, the fencing token from the Reactor
 * {@code Context} in the write, and the database guard.
 */
package io.distlock.sample.reactive;

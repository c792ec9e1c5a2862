/**
 * The lock store on PostgreSQL: {@link io.distlock.jdbc.PostgresLockRegistry} on a lease table
 * ({@code distlock_lock}, created by {@code META-INF/distlock/jdbc/schema-postgresql.sql}), with
 * the database's clock, autocommit statements apart from the caller's transaction, and
 * LISTEN/NOTIFY for releases.
 */
@NullMarked
package io.distlock.jdbc;

import org.jspecify.annotations.NullMarked;

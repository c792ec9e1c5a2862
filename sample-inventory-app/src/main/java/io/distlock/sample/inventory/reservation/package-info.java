/**
 * Ways to reserve stock side by side: the lock with the database guard, the guard alone,
 * optimistic versions, fencing tokens, and an unguarded read-check-write that shows what goes
 * wrong without any of them.
 */
package io.distlock.sample.inventory.reservation;

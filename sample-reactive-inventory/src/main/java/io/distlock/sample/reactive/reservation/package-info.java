/**
 * Reserving stock three ways, side by side: lock and database guard, lock only, and neither.
 */
package io.distlock.sample.reactive.reservation;

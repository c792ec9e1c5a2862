/**
 * Micrometer meters for distributed locks, tagged by the bounded lock name.
 */
package io.distlock.metrics;

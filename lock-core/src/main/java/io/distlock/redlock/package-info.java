/**
 * Redlock: one lock over several independent Redis nodes, granted by a quorum.
 */
package io.distlock.redlock;

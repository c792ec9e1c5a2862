/**
 * Ready-made {@link io.distlock.core.LockListener} implementations: a composite that tells
 * several listeners, and one that publishes a Spring event when a lock is lost.
 */
package io.distlock.listener;

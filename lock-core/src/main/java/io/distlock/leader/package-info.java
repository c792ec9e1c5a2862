/**
 * Leader election over any {@link io.distlock.core.LockRegistry}: one lock per role, the grant's
 * fencing token as the leadership epoch, and the Spring glue that starts a role's work on its
 * leader only ({@link io.distlock.annotation.LeaderOnly}, leadership events).
 */
@NullMarked
package io.distlock.leader;

import org.jspecify.annotations.NullMarked;

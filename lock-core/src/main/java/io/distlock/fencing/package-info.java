/**
 * Fencing checked where data is written: writes that carry the holder's fencing token and are
 * refused, with {@link io.distlock.core.StaleFencingTokenException}, once a newer holder of the
 * lock has written. Each helper needs its store's client on the class path (Spring JDBC, Spring
 * R2DBC, Jakarta Persistence, Spring Data Redis).
 */
@NullMarked
package io.distlock.fencing;

import org.jspecify.annotations.NullMarked;

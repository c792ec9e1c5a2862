/**
 * Actuator support for distributed locks: the {@code locks} endpoint and the health indicator.
 */
package io.distlock.actuate;

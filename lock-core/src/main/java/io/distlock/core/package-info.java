/**
 * The distlock API: registries that hand out distributed locks, the leases they grant, the
 * listener SPI and the exceptions.
 */
package io.distlock.core;

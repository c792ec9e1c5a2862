/**
 * Spring Boot auto-configuration for distlock: the lock registry, the annotation's advice,
 * metrics, the locks endpoint and the health contributor.
 */
package io.distlock.autoconfigure;

/**
 * The {@link io.distlock.annotation.DistributedLock} annotation and its failure modes.
 */
package io.distlock.annotation;

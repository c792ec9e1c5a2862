/**
 * A scheduled job that runs on exactly one instance per run.
 */
package io.distlock.sample.inventory.reconcile;

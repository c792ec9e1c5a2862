/**
 * Real Redis and PostgreSQL servers started inside the application when none is configured.
 */
package io.distlock.sample.inventory.embedded;

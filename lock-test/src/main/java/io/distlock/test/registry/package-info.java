/**
 * Lock registries for tests: made on a test's store, closed after each test, with a random key
 * per use.
 */
package io.distlock.test.registry;

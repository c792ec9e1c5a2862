/**
 * The registry contract tests, published for anyone who writes a {@code LockRegistry} of their own.
 */
package io.distlock.test.contract;

/**
 * A sample inventory service that shows why a distributed lock is not enough on its own, and
 * that nothing is ever oversold.
 */
package io.distlock.sample.inventory;

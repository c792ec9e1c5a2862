/**
 * A cached view of the best-selling products that only one instance rebuilds at a time.
 */
package io.distlock.sample.inventory.view;

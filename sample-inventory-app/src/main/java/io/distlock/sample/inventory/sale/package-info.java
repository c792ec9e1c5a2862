/**
 * The flash-sale simulation: many buyers, little stock, one strategy at a time.
 */
package io.distlock.sample.inventory.sale;

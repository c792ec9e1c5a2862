/**
 * Products and their stock.
 */
package io.distlock.sample.inventory.product;

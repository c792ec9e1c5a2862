/**
 * Purchase orders.
 */
package io.distlock.sample.inventory.order;

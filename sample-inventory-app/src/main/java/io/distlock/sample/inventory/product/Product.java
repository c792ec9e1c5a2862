package io.distlock.sample.inventory.product;

/**
 * A product and its stock.
 *
 * @param id the id
 * @param name the name
 * @param stock the units left
 * @param version the optimistic version, bumped by every stock change
 * @param lastFence the highest fencing token that wrote this row
 */
public record Product(long id, String name, int stock, long version, long lastFence) {
}

package io.distlock.sample.inventory.view;

import java.util.List;

/**
 * The best-selling products, as built at one moment.
 *
 * @param builtAtMillis when the view was built (epoch milliseconds)
 * @param builtBy the instance that built it
 * @param products the products, best-selling first
 */
public record HotProducts(long builtAtMillis, String builtBy, List<HotProduct> products) {

	/**
	 * One line of the view.
	 *
	 * @param id the product id
	 * @param name the name
	 * @param sold the units sold
	 */
	public record HotProduct(long id, String name, int sold) {
	}

}

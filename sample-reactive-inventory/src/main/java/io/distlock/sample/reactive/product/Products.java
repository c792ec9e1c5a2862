package io.distlock.sample.reactive.product;

import reactor.core.publisher.Mono;

import org.springframework.r2dbc.core.DatabaseClient;
import org.springframework.stereotype.Repository;

/**
 * Products, their stock and how many orders they have, read and written with R2DBC.
 */
@Repository
public class Products {

	private final DatabaseClient database;

	public Products(DatabaseClient database) {
		this.database = database;
	}

	/**
	 * Create a product.
	 * @return its id
	 */
	public Mono<Long> create(String name, int stock) {
		return this.database.sql("INSERT INTO product (name, stock) VALUES (:name, :stock) RETURNING id")
			.bind("name", name)
			.bind("stock", stock)
			.map((row) -> row.get("id", Long.class))
			.one();
	}

	/**
	 * Return the product's stock and the units its orders took.
	 */
	public Mono<Product> find(long id) {
		return this.database
			.sql("SELECT p.id, p.name, p.stock, COALESCE(SUM(o.quantity), 0) AS sold FROM product p "
					+ "LEFT JOIN purchase_order o ON o.product_id = p.id WHERE p.id = :id GROUP BY p.id")
			.bind("id", id)
			.map((row) -> new Product(row.get("id", Long.class), row.get("name", String.class),
					row.get("stock", Integer.class), row.get("sold", Number.class).intValue()))
			.one();
	}

	/**
	 * A product's stock and the units sold.
	 *
	 * @param id the id
	 * @param name the name
	 * @param stock the units left
	 * @param sold the units its orders took
	 */
	public record Product(long id, String name, int stock, int sold) {
	}

}

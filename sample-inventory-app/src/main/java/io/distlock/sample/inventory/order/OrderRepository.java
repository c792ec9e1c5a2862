package io.distlock.sample.inventory.order;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.jdbc.support.KeyHolder;
import org.springframework.stereotype.Repository;

/**
 * Purchase orders: one row per accepted reservation.
 */
@Repository
public class OrderRepository {

	private final JdbcClient jdbc;

	private final String instance;

	public OrderRepository(JdbcClient jdbc, @Value("${inventory.instance}") String instance) {
		this.jdbc = jdbc;
		this.instance = instance;
	}

	public long insert(long productId, int quantity, String strategy) {
		KeyHolder keys = new GeneratedKeyHolder();
		this.jdbc
			.sql("insert into purchase_order (product_id, quantity, strategy, instance) "
					+ "values (:product, :quantity, :strategy, :instance)")
			.param("product", productId)
			.param("quantity", quantity)
			.param("strategy", strategy)
			.param("instance", this.instance)
			.update(keys, "id");
		return keys.getKey().longValue();
	}

	/** The units sold of a product: the sum of its orders. */
	public int soldQuantity(long productId) {
		return this.jdbc.sql("select coalesce(sum(quantity), 0) from purchase_order where product_id = :p")
			.param("p", productId)
			.query(Integer.class)
			.single();
	}

	public int count(long productId) {
		return this.jdbc.sql("select count(*) from purchase_order where product_id = :p")
			.param("p", productId)
			.query(Integer.class)
			.single();
	}

	public int countAll() {
		return this.jdbc.sql("select count(*) from purchase_order").query(Integer.class).single();
	}

}

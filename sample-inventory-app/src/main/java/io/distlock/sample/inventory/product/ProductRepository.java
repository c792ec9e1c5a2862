package io.distlock.sample.inventory.product;

import java.util.List;
import java.util.Optional;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.jdbc.support.KeyHolder;
import org.springframework.stereotype.Repository;

/**
 * The SQL of products; each stock write says in its WHERE clause what protects it.
 */
@Repository
public class ProductRepository {

	private final JdbcClient jdbc;

	public ProductRepository(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	public long create(String name, int stock) {
		KeyHolder keys = new GeneratedKeyHolder();
		this.jdbc.sql("insert into product (name, stock) values (:name, :stock)")
			.param("name", name)
			.param("stock", stock)
			.update(keys, "id");
		return keys.getKey().longValue();
	}

	public Optional<Product> find(long id) {
		return this.jdbc.sql("select id, name, stock, version, last_fence from product where id = :id")
			.param("id", id)
			.query(Product.class)
			.optional();
	}

	public List<Product> findAll() {
		return this.jdbc.sql("select id, name, stock, version, last_fence from product order by id desc limit 50")
			.query(Product.class)
			.list();
	}

	public int stock(long id) {
		return this.jdbc.sql("select stock from product where id = :id").param("id", id).query(Integer.class).single();
	}

	/** The database guard: the decrement happens only while enough stock is left. */
	public int decrementGuarded(long id, int quantity) {
		return this.jdbc
			.sql("update product set stock = stock - :q, version = version + 1 where id = :id and stock >= :q")
			.param("q", quantity)
			.param("id", id)
			.update();
	}

	/** Optimistic concurrency: the write happens only if nobody changed the row since it was read. */
	public int decrementIfVersion(long id, int quantity, long version) {
		return this.jdbc
			.sql("update product set stock = stock - :q, version = version + 1 where id = :id and version = :v")
			.param("q", quantity)
			.param("id", id)
			.param("v", version)
			.update();
	}

	/** No protection at all: the write of a read-check-write. Only for the negative control. */
	public int writeStock(long id, int stock) {
		return this.jdbc.sql("update product set stock = :s, version = version + 1 where id = :id")
			.param("s", stock)
			.param("id", id)
			.update();
	}

}

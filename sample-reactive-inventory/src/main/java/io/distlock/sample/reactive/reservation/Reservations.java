package io.distlock.sample.reactive.reservation;

import java.time.Duration;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.r2dbc.core.DatabaseClient;
import org.springframework.r2dbc.core.DatabaseClient.GenericExecuteSpec;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import io.distlock.annotation.DistributedLock;
import io.distlock.reactive.ReactiveLockContext;

/**
 * Reserves stock, one strategy per method. Every method returns a {@code Mono} that is empty
 * when the product is sold out, and nothing here blocks: the lock is taken with
 * {@code acquireAsync} on subscription, the database is reached through R2DBC.
 * <p>
 * The lock is outside the transaction ({@code @DistributedLock} runs before
 * {@code @Transactional}), and a transaction whose lock was lost before its commit rolls back.
 */
@Service
public class Reservations {

	private final DatabaseClient database;

	private final Duration thinkTime;

	public Reservations(DatabaseClient database, @Value("${inventory.think-time:5ms}") Duration thinkTime) {
		this.database = database;
		this.thinkTime = thinkTime;
	}

	/**
	 * Reserve under the lock, with the lock's fencing token in the write and the database guard.
	 */
	// tag::reserve[]
	@DistributedLock(key = "'stock:' + #productId")
	@Transactional
	public Mono<Reservation> reserve(long productId, int quantity) {
		return ReactiveLockContext.current().flatMap((lease) -> this.database.sql("""
				UPDATE product SET stock = stock - :quantity, last_fence = :fence
				WHERE id = :id AND stock >= :quantity AND last_fence <= :fence""")
			.bind("quantity", quantity)
			.bind("fence", lease.fencingToken())
			.bind("id", productId)
			.fetch()
			.rowsUpdated()
			// No row: sold out, or a newer holder's token was written already.
			.filter((updated) -> updated == 1)
			.flatMap((updated) -> order(productId, quantity, Strategy.GUARDED, lease.fencingToken())));
	}
	// end::reserve[]

	/**
	 * Reserve under the lock with a read, some work and a plain write.
	 */
	@DistributedLock(key = "'stock:' + #productId")
	@Transactional
	public Mono<Reservation> reserveLockOnly(long productId, int quantity) {
		return readWorkWrite(productId, quantity, Strategy.LOCK_ONLY);
	}

	/**
	 * Reserve with a read, some work and a plain write, without a lock.
	 */
	@Transactional
	public Mono<Reservation> reserveUnguarded(long productId, int quantity) {
		return readWorkWrite(productId, quantity, Strategy.UNGUARDED);
	}

	private Mono<Reservation> readWorkWrite(long productId, int quantity, Strategy strategy) {
		return this.database.sql("SELECT stock FROM product WHERE id = :id")
			.bind("id", productId)
			.map((row) -> row.get("stock", Integer.class))
			.one()
			.delayUntil((stock) -> Mono.delay(this.thinkTime))
			.filter((stock) -> stock >= quantity)
			.flatMap((stock) -> this.database.sql("UPDATE product SET stock = :stock WHERE id = :id")
				.bind("stock", stock - quantity)
				.bind("id", productId)
				.then()
				.then(order(productId, quantity, strategy, null)));
	}

	private Mono<Reservation> order(long productId, int quantity, Strategy strategy, @Nullable Long fencingToken) {
		GenericExecuteSpec insert = this.database.sql("""
				INSERT INTO purchase_order (product_id, quantity, strategy, fence)
				VALUES (:product, :quantity, :strategy, :fence) RETURNING id""")
			.bind("product", productId)
			.bind("quantity", quantity)
			.bind("strategy", strategy.name());
		insert = (fencingToken != null) ? insert.bind("fence", fencingToken) : insert.bindNull("fence", Long.class);
		return insert.map((row) -> row.get("id", Long.class))
			.one()
			.map((orderId) -> new Reservation(orderId, productId, quantity, strategy, fencingToken));
	}

}

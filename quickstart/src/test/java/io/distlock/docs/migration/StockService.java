package io.distlock.docs.migration;

import java.time.Duration;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;

import io.distlock.core.DistLock;
import io.distlock.core.LockLease;
import io.distlock.core.LockRegistry;

/**
 * From Redisson's {@code RLock} (docs/migration.md): the same {@code Lock} shape, and the lease
 * with its fencing token where the write should refuse a stale holder.
 */
@Service
public class StockService {

	private final LockRegistry registry;

	private final JdbcTemplate jdbc;

	public StockService(LockRegistry registry, JdbcTemplate jdbc) {
		this.registry = registry;
		this.jdbc = jdbc;
	}

	// tag::lock[]
	public boolean reserve(long productId, int quantity) throws InterruptedException {
		DistLock lock = registry.obtain("stock:" + productId);
		if (!lock.tryLock(Duration.ofSeconds(2))) { // no lease: the watchdog renews it
			return false;
		}
		try {
			long token = lock.lease().fencingToken();
			return jdbc.update("update product set stock = stock - ?, fence = ? where id = ? and stock >= ? and fence < ?",
					quantity, token, productId, quantity, token) == 1;
		}
		finally {
			lock.unlock();
		}
	}
	// end::lock[]

	// tag::lease[]
	public boolean restock(long productId, int quantity) {
		try (LockLease lease = registry.acquire("stock:" + productId, Duration.ofSeconds(2))) {
			return jdbc.update("update product set stock = stock + ?, fence = ? where id = ? and fence < ?",
					quantity, lease.fencingToken(), productId, lease.fencingToken()) == 1;
		}
	}
	// end::lease[]

}

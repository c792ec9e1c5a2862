package com.example.inventory;

import io.distlock.annotation.DistributedLock;
import io.distlock.annotation.OnFailure;
import io.distlock.core.LockContext;
import io.distlock.fencing.RedisFencing;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Service;

/**
 * Reserves stock kept in Redis: one caller per product at a time, across every instance, and a
 * caller whose lock was lost while it ran (a pause longer than the lease, a failover) cannot
 * write over a newer one's reservation.
 */
@Service
public class InventoryService {

	private final StringRedisTemplate redis;

	private final RedisFencing fencing;

	public InventoryService(StringRedisTemplate redis, RedisFencing fencing) {
		this.redis = redis;
		this.fencing = fencing;
	}

	public void restock(long productId, long units) {
		this.redis.opsForValue().set("stock:" + productId, Long.toString(units));
	}

	@DistributedLock(key = "'stock:' + #productId", waitTime = "2s")
	public Reservation reserve(long productId, int quantity) {
		// The lock lets one caller at a time in while its lease holds. The fenced read and write
		// carry the lock's fencing token: once a newer holder has read the stock, an older one's
		// write is refused with StaleFencingTokenException instead of overwriting it.
		long token = LockContext.current().fencingToken();
		String stored = this.fencing.get("stock:" + productId);
		long stock = (stored != null) ? Long.parseLong(stored) : 0;
		if (stock < quantity) {
			return new Reservation(productId, 0, token);
		}
		this.fencing.set("stock:" + productId, Long.toString(stock - quantity));
		return new Reservation(productId, quantity, token);
	}

	@Scheduled(cron = "0 0 * * * *")
	@DistributedLock(onFailure = OnFailure.SKIP, waitTime = "0s", holdAtLeast = "30s")
	public void reconcile() {
		// Every instance schedules it; it runs on one of them per tick, the others skip.
	}

	/** What a reservation got: the units reserved (0 when out of stock) and the lock's fencing token. */
	public record Reservation(long productId, int reserved, long fencingToken) {
	}

}

package com.example.inventory;

import io.distlock.annotation.DistributedLock;
import io.distlock.annotation.OnFailure;
import io.distlock.core.LockContext;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Service;

/**
 * Reserves stock kept in Redis: one caller per product at a time, across every instance.
 */
@Service
public class InventoryService {

	private final StringRedisTemplate redis;

	public InventoryService(StringRedisTemplate redis) {
		this.redis = redis;
	}

	public void restock(long productId, long units) {
		this.redis.opsForValue().set("stock:" + productId, Long.toString(units));
	}

	@DistributedLock(key = "'stock:' + #productId", waitTime = "2s")
	public Reservation reserve(long productId, int quantity) {
		// Read, check, write: safe, because the lock lets one caller at a time in.
		// The fencing token grows with every grant; pass it to a write that can reject a stale holder.
		long token = LockContext.current().fencingToken();
		String stored = this.redis.opsForValue().get("stock:" + productId);
		long stock = (stored != null) ? Long.parseLong(stored) : 0;
		if (stock < quantity) {
			return new Reservation(productId, 0, token);
		}
		this.redis.opsForValue().set("stock:" + productId, Long.toString(stock - quantity));
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

package com.example.inventory;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.example.inventory.InventoryService.Reservation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

import io.distlock.core.LockLease;
import io.distlock.core.LockLostException;
import io.distlock.core.LockRegistry;
import io.distlock.core.StaleFencingTokenException;
import io.distlock.fencing.RedisFencing;
import io.distlock.test.boot.EmbeddedRedis;
import io.distlock.test.redis.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The Quick start's fenced write against a stale holder, on a real {@code redis-server}: a
 * holder of the lock {@code stock:42} reads the stock through the Quick start's
 * {@link RedisFencing}, then loses its lock (its key vanishes from Redis, as in a failover or a
 * pause longer than the lease); {@code reserve()} runs meanwhile as the newer holder; the stale
 * holder's fenced write is then refused and the newer reservation stands. The negative control
 * writes the same value without the fence and it lands over the newer reservation.
 */
@SpringBootTest(webEnvironment = WebEnvironment.NONE)
@EmbeddedRedis
@Timeout(60)
class QuickStartFencingIntegrationTests {

	@Autowired
	private RedisServer redis;

	@Autowired
	private InventoryService inventory;

	@Autowired
	private RedisFencing fencing;

	@Autowired
	private LockRegistry registry;

	@Test
	void aStaleHoldersFencedWriteIsRefusedAndTheNewerReservationStands() throws Exception {
		String written = staleHolderWritesAfterANewerReservation(42, true);
		assertThat(written).as("the stale holder's write").isEqualTo("refused");
		assertThat(this.redis.template().opsForValue().get("stock:42")).as("10 less the newer holder's 2").isEqualTo("8");
	}

	@Test
	void negativeControlWithoutTheFenceTheStaleWriteOverwritesTheNewerReservation() throws Exception {
		String written = staleHolderWritesAfterANewerReservation(43, false);
		assertThat(written).as("the stale holder's write").isEqualTo("written");
		assertThat(this.redis.template().opsForValue().get("stock:43")).as("the stale holder's 10 - 1").isEqualTo("9");
	}

	/**
	 * Stock 10. The stale holder takes the lock of the product, reads, loses the lock; a call of
	 * {@code reserve(id, 2)} on another thread takes the lock and reserves; then the stale holder
	 * writes its stock less 1, fenced or not. Return whether the write was written or refused.
	 */
	private String staleHolderWritesAfterANewerReservation(long productId, boolean fenced) throws Exception {
		this.inventory.restock(productId, 10);
		String key = "stock:" + productId;
		LockLease stale = this.registry.acquire(key, Duration.ofSeconds(2));
		try {
			String stored = this.fencing.get(key, stale);
			long stock = Long.parseLong(stored);

			// The lock is lost: its key vanishes from Redis, and the holder, as its watchdog would
			// at the next renewal, finds out (so that the next caller of this instance may go in).
			assertThat(this.redis.template().delete("distlock:{" + key + "}")).isTrue();
			assertThat(stale.confirm()).isFalse();

			Reservation newer = CompletableFuture.supplyAsync(() -> this.inventory.reserve(productId, 2))
				.get(10, TimeUnit.SECONDS);
			assertThat(newer.reserved()).isEqualTo(2);
			assertThat(newer.fencingToken()).isGreaterThan(stale.fencingToken());

			// The stale holder goes on with what it read.
			if (!fenced) {
				this.redis.template().opsForValue().set(key, Long.toString(stock - 1));
				return "written";
			}
			assertThatExceptionOfType(StaleFencingTokenException.class)
				.isThrownBy(() -> this.fencing.set(key, Long.toString(stock - 1), stale));
			return "refused";
		}
		finally {
			try {
				stale.release();
			}
			catch (LockLostException ex) {
				// Releasing a lease that was lost says so; expected here.
			}
		}
	}

}

package io.distlock.sample.inventory.reservation;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Component;

import io.distlock.core.LockContext;

/**
 * Holders paused past their lease, on purpose: every n-th reservation's business work stalls
 * ({@code inventory.pauses.time}, default 200 ms) and, if it runs under a lock, the lock's key
 * is deleted from Redis as it stalls, as a failover that lost the key, or a pause longer than the
 * lease, would: another buyer gets the lock while this holder still works, and this holder goes
 * on afterwards as if it still held it. The lock alone then
 * oversells; fencing refuses the stale holder's write. {@code inventory.pauses.every} (default
 * 0: never) sets n for the whole instance; a flash sale with {@code loseLocks} sets it for its
 * duration.
 */
@Component
public class HolderPauses {

	/** The n of a flash sale that loses locks: one reservation in 10 pauses. */
	public static final int SALE_EVERY = 10;

	private final StringRedisTemplate redis;

	private final String keyPrefix;

	private final Duration pauseTime;

	private final AtomicInteger calls = new AtomicInteger();

	private final AtomicInteger locksLost = new AtomicInteger();

	private volatile int every;

	public HolderPauses(StringRedisTemplate redis, @Value("${distlock.key-prefix:distlock:}") String keyPrefix,
			@Value("${inventory.pauses.every:0}") int every, @Value("${inventory.pauses.time:200ms}") Duration pauseTime) {
		this.redis = redis;
		this.keyPrefix = keyPrefix;
		this.every = every;
		this.pauseTime = pauseTime;
	}

	/**
	 * Pause every n-th reservation until the returned handle is closed.
	 * @param every n
	 * @return the handle; closing it restores the instance's setting
	 */
	public Session pauseEvery(int every) {
		int before = this.every;
		int lostBefore = this.locksLost.get();
		this.every = every;
		return new Session() {

			@Override
			public int locksLost() {
				return HolderPauses.this.locksLost.get() - lostBefore;
			}

			@Override
			public void close() {
				HolderPauses.this.every = before;
			}

		};
	}

	/**
	 * Return how many held locks this instance has lost on purpose so far.
	 * @return the count
	 */
	public int locksLost() {
		return this.locksLost.get();
	}

	void maybePause() throws InterruptedException {
		int n = this.every;
		if (n <= 0 || this.calls.incrementAndGet() % n != 0) {
			return;
		}
		// The Redis key of the lock the reservation holds, if any (the lock and fenced strategies).
		LockContext.find().ifPresent((lease) -> {
			if (Boolean.TRUE.equals(this.redis.delete(this.keyPrefix + "{" + lease.key() + "}"))) {
				this.locksLost.incrementAndGet();
				// The loss noticed at once, as the watchdog notices it at its next renewal: the
				// next buyer of this instance goes in (another instance's at its next attempt).
				// This holder's thread is not stopped; it goes on after the pause.
				lease.confirm();
			}
		});
		Thread.sleep(this.pauseTime.toMillis());
	}

	/**
	 * Pauses in progress for a sale.
	 */
	public interface Session extends AutoCloseable {

		/**
		 * Return how many held locks were lost on purpose since the session began.
		 * @return the count
		 */
		int locksLost();

		@Override
		void close();

	}

}

package io.distlock.redis;

import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.distlock.core.DistLock;
import io.distlock.core.LockLease;
import io.distlock.core.LockRequest;
import io.distlock.test.redis.RedisServerExtension;
import io.distlock.test.registry.LockRegistries;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code lock()} cannot answer "not acquired", so an interrupt that reaches a thread waiting in it
 * does not end the wait: the thread keeps its place, is granted the lock once the holder lets go,
 * and finds its interrupt flag still set.
 */
@Timeout(60)
class LockWaitThroughInterruptIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockRegistries registries = LockRegistries.on(redis);

	private final RedisLockRegistry holder = this.registries.redis();

	private final RedisLockRegistry waiter = this.registries.redis();

	@Test
	void aThreadWaitingInLockIsNotStoppedByAnInterruptAndKeepsTheFlag() throws Exception {
		for (boolean fair : new boolean[] { false, true }) {
			String key = "uninterruptible:" + UUID.randomUUID();
			LockLease held = this.holder.acquire(LockRequest.of(key).fair(fair));
			CompletableFuture<Void> waiting = new CompletableFuture<>();
			CompletableFuture<Boolean> heldAfterLock = new CompletableFuture<>();
			CompletableFuture<Boolean> flagAfterLock = new CompletableFuture<>();
			Thread thread = new Thread(() -> {
				DistLock lock = fair ? this.waiter.obtainFair(key) : this.waiter.obtain(key);
				waiting.complete(null);
				try {
					lock.lock();
					// Read the flag first: the checks below may talk to the store themselves.
					flagAfterLock.complete(Thread.interrupted());
					heldAfterLock.complete(lock.isHeldByCurrentThread());
					lock.unlock();
				}
				catch (Throwable ex) {
					flagAfterLock.completeExceptionally(ex);
					heldAfterLock.completeExceptionally(ex);
				}
			});
			thread.start();
			waiting.get(5, TimeUnit.SECONDS);
			// Let the thread make its first attempt and wait.
			Thread.sleep(300);
			thread.interrupt();
			Thread.sleep(500);
			assertThat(flagAfterLock).as("fair=" + fair + ": still waiting after the interrupt").isNotDone();
			assertThat(thread.isAlive()).isTrue();
			held.release();
			assertThat(flagAfterLock.get(10, TimeUnit.SECONDS)).as("fair=" + fair + ": the flag is kept").isTrue();
			assertThat(heldAfterLock.get(10, TimeUnit.SECONDS)).as("fair=" + fair + ": granted").isTrue();
			thread.join(10_000);
			assertThat(redis.server().template().hasKey("distlock:{" + key + "}")).isFalse();
			assertThat(this.waiter.localKeyCount()).isZero();
		}
	}

}

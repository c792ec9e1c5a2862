package io.distlock.test.memory;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.distlock.core.DistLock;
import io.distlock.core.LockLease;
import io.distlock.core.LockListener;
import io.distlock.core.LockRequest;
import io.distlock.core.WaitStrategy;
import io.distlock.detector.GrantLog;
import io.distlock.detector.Workers;
import io.distlock.engine.AbstractLockRegistry;
import io.distlock.store.LocalHandoffStore;
import io.distlock.store.LockStore;
import io.distlock.engine.RegistrySettings;
import io.distlock.store.ForwardingLockStore;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The token order across local handoffs and store grants, on the in-memory store, whose tokens
 * count up by one for every grant of any key: a store grant right after a run of handoffs is
 * larger than the run's last token only because the release recorded it. The negative control
 * runs the same workload on a store that drops the record, and the detector fires.
 */
@Timeout(30)
class LocalHandoffTokenTests {

	@Test
	void tokensGrowWithEveryGrantWhenTheReleaseRecordsHandedOverTokens() throws Exception {
		GrantLog log = run(new InMemoryLockStore());
		assertThat(log.handoffs()).as("local handoffs").isPositive();
		assertThat(log.firstDecrease()).isEmpty();
	}

	@Test
	void negativeControlAStoreThatForgetsHandedOverTokensRepeatsTokens() throws Exception {
		GrantLog log = run(new ForgetfulStore(new InMemoryLockStore()));
		assertThat(log.firstDecrease()).isPresent();
	}

	/**
	 * A handed-over grant released with {@code holdAtLeast} stays in the store until then, and
	 * its release records its token as any other release of a handed-over grant does: the next
	 * grant, after the kept key expires, has a larger token.
	 */
	@Test
	void aHandedOverGrantKeptForHoldAtLeastRecordsItsToken() throws Exception {
		InMemoryLockRegistry registry = new InMemoryLockRegistry();
		try {
			LockLease first = registry.acquire("k", Duration.ZERO);
			// Queued at the gate before acquireAsync returns: the release below hands the grant over.
			CompletableFuture<LockLease> waiting = registry.acquireAsync(LockRequest.of("k")
				.waitTime(Duration.ofSeconds(5))).toCompletableFuture();
			first.release();
			LockLease handed = waiting.get(5, TimeUnit.SECONDS);
			assertThat(handed.fencingToken()).as("handed over").isEqualTo(first.fencingToken() + 1);
			handed.release(Duration.ofSeconds(2));
			try (LockLease next = registry.acquire("k", Duration.ofSeconds(5))) {
				assertThat(next.fencingToken()).as("the grant after the kept key expired")
					.isGreaterThan(handed.fencingToken());
			}
		}
		finally {
			registry.close();
		}
	}

	/**
	 * Two registries on one store, two threads each, taking one key in a loop.
	 */
	private static GrantLog run(LocalHandoffStore store) throws Exception {
		AbstractLockRegistry first = registry(store);
		AbstractLockRegistry second = registry(store);
		try {
			GrantLog log = new GrantLog();
			List<DistLock> locks = List.of(first.obtain("k"), first.obtain("k"), second.obtain("k"),
					second.obtain("k"));
			long until = System.nanoTime() + Duration.ofMillis(400).toNanos();
			Workers.runAll(Executors.newFixedThreadPool(locks.size()), locks.size(), (worker) -> {
				DistLock lock = locks.get(worker);
				while (System.nanoTime() < until) {
					lock.lock();
					try {
						log.granted(worker, lock.lease().fencingToken(), 0);
						GrantLog.work(Duration.ofNanos(100_000));
					}
					finally {
						lock.unlock();
					}
				}
			});
			return log;
		}
		finally {
			first.close();
			second.close();
		}
	}

	private static AbstractLockRegistry registry(LocalHandoffStore store) {
		// Closing a registry closes its store; these stores need no closing.
		return new AbstractLockRegistry(new Unclosed(store), new RegistrySettings(Duration.ofSeconds(30),
				Duration.ofSeconds(10), WaitStrategy.PUB_SUB, Duration.ofMillis(50), LockListener.NONE,
				RegistrySettings.newInstanceId())) {
		};
	}

	/** Forwards everything but {@link #close()}: the stores are shared by two registries. */
	private static class Unclosed extends ForwardingLockStore {

		Unclosed(LocalHandoffStore delegate) {
			super(delegate);
		}

		@Override
		public void close() {
		}

	}

	/** The bug the record prevents: a release that does not record the handed-over tokens. */
	private static final class ForgetfulStore extends Unclosed {

		ForgetfulStore(LocalHandoffStore delegate) {
			super(delegate);
		}

		@Override
		public CompletableFuture<Release> releaseExclusive(String key, String owner, long lastToken) {
			return super.releaseExclusive(key, owner, 0);
		}

		@Override
		public CompletableFuture<Checkpoint> keepUnlessAwaited(String key, String owner, long lastToken, Duration leaseTime) {
			return super.keepUnlessAwaited(key, owner, 0, leaseTime);
		}

	}

}

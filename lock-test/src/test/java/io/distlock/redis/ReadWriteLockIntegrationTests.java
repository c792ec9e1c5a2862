package io.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.distlock.core.DistLock;
import io.distlock.core.LockContext;
import io.distlock.core.LockLostException;
import io.distlock.test.redis.RedisServerExtension;
import io.distlock.test.registry.LockRegistries;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Read/write locks on one Redis: a writer waits for exactly the readers whose leases still run,
 * every reader queued behind a writer is let in by its release, a reader's hold belongs to its
 * thread, and a read or write hold lost in a Redis restart is told like an exclusive one (that
 * test kills and restarts Redis: tagged {@code fault}, it runs in {@code ./mvnw -Pfaults verify}).
 */
@Timeout(60)
class ReadWriteLockIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockRegistries registries = LockRegistries.on(redis);

	@Test
	void aWriterWaitsForTheReadersWhoseLeasesRunAndNotForALongerLeaseReleasedAlready() throws Exception {
		String key = this.registries.randomKey();
		DistLock shortReader = this.registries.redis().obtainReadWrite(key).readLock();
		DistLock longReader = this.registries.redis().obtainReadWrite(key).readLock();
		DistLock writer = this.registries.redis().obtainReadWrite(key).writeLock();
		long start = System.nanoTime();
		// Never released: this reader's fixed lease simply runs out after a second.
		assertThat(shortReader.tryLock(Duration.ZERO, Duration.ofSeconds(1))).isTrue();
		// A second reader with a ten-second lease comes and goes while the first still reads.
		assertThat(this.registries.executor().submit(() -> {
			boolean locked = longReader.tryLock(Duration.ZERO, Duration.ofSeconds(10));
			longReader.unlock();
			return locked;
		}).get(10, TimeUnit.SECONDS)).isTrue();
		Future<Long> writerGrantedAt = this.registries.executor().submit(() -> {
			assertThat(writer.tryLock(Duration.ofSeconds(20))).isTrue();
			long grantedAt = System.nanoTime();
			writer.unlock();
			return grantedAt;
		});
		long waitedMillis = TimeUnit.NANOSECONDS.toMillis(writerGrantedAt.get(20, TimeUnit.SECONDS) - start);
		// Not while the first reader's lease ran (its key expired a second after it was granted),
		// and not as late as the ten-second lease that was released already would have run.
		assertThat(waitedMillis).isBetween(900L, 5_000L);
		// The reader whose lease ran out is told so by its unlock, which also clears the thread.
		assertThatExceptionOfType(LockLostException.class).isThrownBy(shortReader::unlock);
		assertThat(LockContext.find()).isEmpty();
	}

	@Test
	void everyReaderQueuedBehindAWriterIsLetInByItsRelease() throws Exception {
		String key = this.registries.randomKey();
		DistLock writer = this.registries.redis().obtainReadWrite(key).writeLock();
		// Readers that are not woken by the release would wait their 30 s retry interval.
		List<RedisLockRegistry> readerProcesses = List.of(
				this.registries.redis((builder) -> builder.retryInterval(Duration.ofSeconds(30))),
				this.registries.redis((builder) -> builder.retryInterval(Duration.ofSeconds(30))));
		int readers = 6;
		writer.lock();
		CountDownLatch waiting = new CountDownLatch(readers);
		CountDownLatch allInside = new CountDownLatch(readers);
		List<Future<Boolean>> outcomes = new ArrayList<>();
		for (int i = 0; i < readers; i++) {
			DistLock reader = readerProcesses.get(i % 2).obtainReadWrite(key).readLock();
			outcomes.add(this.registries.executor().submit(() -> {
				waiting.countDown();
				if (!reader.tryLock(Duration.ofSeconds(25))) {
					return false;
				}
				try {
					allInside.countDown();
					// Stay until every reader is inside: they all read at the same time.
					return allInside.await(20, TimeUnit.SECONDS);
				}
				finally {
					reader.unlock();
				}
			}));
		}
		assertThat(waiting.await(5, TimeUnit.SECONDS)).isTrue();
		// Let every reader make its first attempt and start waiting.
		Thread.sleep(500);
		assertThat(allInside.getCount()).as("no reader while the writer holds").isEqualTo(readers);
		long releasedAt = System.nanoTime();
		writer.unlock();
		assertThat(allInside.await(20, TimeUnit.SECONDS)).isTrue();
		assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - releasedAt))
			.as("every reader let in by the release, none left to its 30 s retry interval")
			.isLessThan(5_000L);
		for (Future<Boolean> outcome : outcomes) {
			assertThat(outcome.get(10, TimeUnit.SECONDS)).isTrue();
		}
	}

	@Test
	void readersOfTheSameProcessAreLetInWhenItsWritersFixedLeaseRunsOut() throws Exception {
		RedisLockRegistry registry = this.registries.redis();
		String key = this.registries.randomKey();
		DistLock writer = registry.obtainReadWrite(key).writeLock();
		long start = System.nanoTime();
		// Never released: the writer's fixed lease runs out after a second.
		assertThat(writer.tryLock(Duration.ZERO, Duration.ofSeconds(1))).isTrue();
		int readers = 2;
		CountDownLatch allInside = new CountDownLatch(readers);
		List<Future<Long>> grantedAt = new ArrayList<>();
		for (int i = 0; i < readers; i++) {
			DistLock reader = registry.obtainReadWrite(key).readLock();
			grantedAt.add(this.registries.executor().submit(() -> {
				assertThat(reader.tryLock(Duration.ofSeconds(20))).isTrue();
				long at = System.nanoTime();
				try {
					allInside.countDown();
					assertThat(allInside.await(10, TimeUnit.SECONDS)).isTrue();
				}
				finally {
					reader.unlock();
				}
				return at;
			}));
		}
		for (Future<Long> granted : grantedAt) {
			long waitedMillis = TimeUnit.NANOSECONDS.toMillis(granted.get(20, TimeUnit.SECONDS) - start);
			assertThat(waitedMillis).as("a reader let in once the writer's lease ran out").isBetween(900L, 5_000L);
		}
		assertThatExceptionOfType(LockLostException.class).isThrownBy(writer::unlock);
		assertThat(registry.localKeyCount()).isZero();
	}

	@Test
	void aReadOrWriteHoldOfAnotherThreadCannotBeUnlockedAndStays() throws Exception {
		RedisLockRegistry registry = this.registries.redis();
		RedisLockRegistry other = this.registries.redis();
		ExecutorService holder = Executors.newSingleThreadExecutor();
		try {
			for (boolean write : new boolean[] { false, true }) {
				String key = this.registries.randomKey();
				DistLock held = write ? registry.obtainReadWrite(key).writeLock()
						: registry.obtainReadWrite(key).readLock();
				holder.submit(held::lock).get(10, TimeUnit.SECONDS);
				DistLock sameLockOnThisThread = write ? registry.obtainReadWrite(key).writeLock()
						: registry.obtainReadWrite(key).readLock();
				assertThat(sameLockOnThisThread.isHeldByCurrentThread()).isFalse();
				assertThatExceptionOfType(IllegalMonitorStateException.class)
					.isThrownBy(sameLockOnThisThread::unlock);
				assertThat(holder.submit(held::isHeldByCurrentThread).get(10, TimeUnit.SECONDS))
					.as("write=" + write).isTrue();
				DistLock otherWriter = other.obtainReadWrite(key).writeLock();
				assertThat(this.registries.executor().submit(() -> tryAndUnlock(otherWriter)).get(10, TimeUnit.SECONDS))
					.as("write=" + write + ": another process's writer while the hold stays").isFalse();
				holder.submit(held::unlock).get(10, TimeUnit.SECONDS);
				assertThat(this.registries.executor().submit(() -> tryAndUnlock(otherWriter)).get(10, TimeUnit.SECONDS))
					.as("write=" + write + ": another process's writer once the holder unlocked").isTrue();
			}
		}
		finally {
			holder.shutdownNow();
		}
		assertThat(registry.localKeyCount()).isZero();
	}

	@Test
	@Tag("fault")
	void readAndWriteHoldsLostInARestartAreToldOnceAndTheNextHoldsAreRenewed() throws Exception {
		RedisLockRegistry registry = this.registries.redis((builder) -> builder.leaseTime(Duration.ofSeconds(1)));
		RedisLockRegistry competitor = this.registries.redis();
		for (boolean write : new boolean[] { false, true }) {
			String key = this.registries.randomKey();
			DistLock lock = write ? registry.obtainReadWrite(key).writeLock() : registry.obtainReadWrite(key).readLock();
			lock.lock();
			AtomicInteger lostCount = new AtomicInteger();
			CompletableFuture<Void> lost = new CompletableFuture<>();
			lock.lease().onLost((ex) -> {
				lostCount.incrementAndGet();
				lost.complete(null);
			});
			redis.server().kill();
			Thread.sleep(500);
			redis.server().restart();
			lost.get(5, TimeUnit.SECONDS);
			assertThat(lock.isHeldByCurrentThread()).as("write=" + write).isFalse();
			assertThatExceptionOfType(LockLostException.class).as("write=" + write).isThrownBy(lock::unlock);

			// The next hold of the same kind on the restarted server is renewed past its lease.
			AtomicInteger lostAgain = new AtomicInteger();
			lock.lock();
			lock.lease().onLost((ex) -> lostAgain.incrementAndGet());
			DistLock competingWriter = competitor.obtainReadWrite(key).writeLock();
			long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
			while (System.nanoTime() < until) {
				assertThat(this.registries.executor().submit(() -> tryAndUnlock(competingWriter)).get(10, TimeUnit.SECONDS))
					.as("write=" + write + ": a writer of another process while the hold is renewed").isFalse();
				Thread.sleep(100);
			}
			assertThat(lock.lease().isValid()).isTrue();
			lock.unlock();
			assertThat(lostAgain).as("write=" + write).hasValue(0);
			assertThat(lostCount).as("write=" + write + ": the loss is told once").hasValue(1);
		}
		assertThat(registry.localKeyCount()).isZero();
	}

	private static boolean tryAndUnlock(DistLock lock) throws InterruptedException {
		if (lock.tryLock(Duration.ZERO)) {
			lock.unlock();
			return true;
		}
		return false;
	}

}

package io.distlock.test.contract;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import io.distlock.core.DistLock;
import io.distlock.core.LockLostException;
import io.distlock.engine.AbstractLockRegistry;

import static io.distlock.test.contract.ContractSteps.onNewThread;
import static io.distlock.test.contract.ContractSteps.tryAndUnlock;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Read/write locks: readers share and a writer excludes them, a waiting writer holds back new
 * readers, read locks are re-entrant and renewed, and both take a fixed lease that runs out.
 * Skipped where the registry does not offer read/write locks.
 */
interface ReadWriteLockContract extends LockRegistryContract {

	@Test
	default void readersShareAndAWriterExcludesThem() throws Exception {
		assumeTrue(offersFairAndReadWriteLocks(), "fair and read/write locks are not offered");
		AbstractLockRegistry first = registry();
		AbstractLockRegistry second = registry();
		String key = randomKey();
		DistLock read = first.obtainReadWrite(key).readLock();
		read.lock();
		assertThat(anotherThreadGets(() -> second.obtainReadWrite(key).readLock())).as("a second reader").isTrue();
		assertThat(anotherThreadGets(() -> second.obtainReadWrite(key).writeLock()))
			.as("a writer while a reader holds").isFalse();
		read.unlock();
		DistLock write = first.obtainReadWrite(key).writeLock();
		write.lock();
		assertThat(anotherThreadGets(() -> second.obtainReadWrite(key).readLock()))
			.as("a reader while a writer holds").isFalse();
		assertThat(anotherThreadGets(() -> second.obtainReadWrite(key).writeLock())).as("a second writer").isFalse();
		write.unlock();
		assertThat(anotherThreadGets(() -> second.obtainReadWrite(key).writeLock()))
			.as("a writer once everyone left").isTrue();
		assertThat(first.localKeyCount()).isZero();
	}

	@Test
	default void aWaitingWriterHoldsBackNewReaders() throws Exception {
		assumeTrue(offersFairAndReadWriteLocks(), "fair and read/write locks are not offered");
		AbstractLockRegistry readers = registry();
		AbstractLockRegistry writers = registry();
		String key = randomKey();
		DistLock firstReader = readers.obtainReadWrite(key).readLock();
		firstReader.lock();
		Future<Boolean> writer = executor()
			.submit(() -> tryAndUnlock(writers.obtainReadWrite(key).writeLock(), Duration.ofSeconds(10)));
		try {
			Thread.sleep(300);
			assertThat(anotherThreadGets(() -> registry().obtainReadWrite(key).readLock()))
				.as("a new reader while a writer waits").isFalse();
		}
		finally {
			// Also when the check fails: a read lock left on this thread would fail later tests.
			firstReader.unlock();
		}
		assertThat(writer.get(10, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	default void readLocksAreReentrantAndRenewed() throws Exception {
		assumeTrue(offersFairAndReadWriteLocks(), "fair and read/write locks are not offered");
		AbstractLockRegistry registry = registry(Duration.ofMillis(600));
		AbstractLockRegistry other = registry();
		String key = randomKey();
		DistLock read = registry.obtainReadWrite(key).readLock();
		read.lock();
		read.lock();
		Thread.sleep(1_500);
		assertThat(read.isHeldByCurrentThread()).isTrue();
		assertThat(anotherThreadGets(() -> other.obtainReadWrite(key).writeLock())).isFalse();
		read.unlock();
		read.unlock();
		assertThat(anotherThreadGets(() -> other.obtainReadWrite(key).writeLock())).isTrue();
	}

	@Test
	default void readAndWriteLocksTakeAFixedLeaseThatRunsOut() throws Exception {
		assumeTrue(offersFairAndReadWriteLocks(), "fair and read/write locks are not offered");
		AbstractLockRegistry registry = registry();
		AbstractLockRegistry other = registry();
		String key = randomKey();
		DistLock write = registry.obtainReadWrite(key).writeLock();
		DistLock read = registry.obtainReadWrite(key).readLock();
		DistLock otherWrite = other.obtainReadWrite(key).writeLock();
		DistLock otherRead = other.obtainReadWrite(key).readLock();
		for (DistLock lock : List.of(write, read)) {
			AtomicInteger lost = new AtomicInteger();
			assertThat(lock.tryLock(Duration.ofSeconds(2), Duration.ofMillis(300))).as(lock.toString()).isTrue();
			lock.lease().onLost((ex) -> lost.incrementAndGet());
			assertThat(lock.lease().remaining()).isLessThanOrEqualTo(Duration.ofMillis(300));
			assertThat(anotherThreadGets(() -> otherWrite)).as("a writer while held").isFalse();
			assertThat(anotherThreadGets(() -> otherRead)).as("a reader while held")
				.isEqualTo(lock == read);
			await().atMost(Duration.ofSeconds(5)).until(() -> lost.get() == 1);
			assertThat(lock.isHeldByCurrentThread()).isFalse();
			assertThat(onNewThread(() -> tryAndUnlock(otherWrite, Duration.ofSeconds(2))))
				.as("another process's writer once the fixed lease ran out").isTrue();
			assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::unlock);
		}
		assertThat(registry.localKeyCount()).isZero();
	}

}

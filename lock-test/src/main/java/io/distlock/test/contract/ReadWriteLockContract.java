package io.distlock.test.contract;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import io.distlock.core.DistLock;
import io.distlock.core.LockLostException;

import static io.distlock.test.contract.ContractSteps.onNewThread;
import static io.distlock.test.contract.ContractSteps.tryAndUnlock;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Read/write locks: readers share and a writer excludes them, a waiting writer holds back new
 * readers, read locks are re-entrant and renewed, and both take a fixed lease that runs out.
 * Skipped where the registry does not offer read/write locks.
 */
interface ReadWriteLockContract extends LockRegistryContract {

	@Test
	default void readersShareAndAWriterExcludesThem() throws Exception {
		ReadWriteKey locks = ReadWriteKey.on(this);
		DistLock read = locks.read();
		read.lock();
		assertThat(locks.otherProcessGetsRead()).as("a second reader").isTrue();
		assertThat(locks.otherProcessGetsWrite()).as("a writer while a reader holds").isFalse();
		read.unlock();
		DistLock write = locks.write();
		write.lock();
		assertThat(locks.otherProcessGetsRead()).as("a reader while a writer holds").isFalse();
		assertThat(locks.otherProcessGetsWrite()).as("a second writer").isFalse();
		write.unlock();
		assertThat(locks.otherProcessGetsWrite()).as("a writer once everyone left").isTrue();
		assertThat(locks.registry().localKeyCount()).isZero();
	}

	@Test
	default void aWaitingWriterHoldsBackNewReaders() throws Exception {
		ReadWriteKey locks = ReadWriteKey.on(this);
		DistLock firstReader = locks.read();
		firstReader.lock();
		DistLock writer = locks.otherWrite();
		Future<Boolean> writing = executor().submit(() -> tryAndUnlock(writer, Duration.ofSeconds(10)));
		try {
			Thread.sleep(300);
			assertThat(anotherThreadGets(() -> registry().obtainReadWrite(locks.key()).readLock()))
				.as("a new reader while a writer waits").isFalse();
		}
		finally {
			// Also when the check fails: a read lock left on this thread would fail later tests.
			firstReader.unlock();
		}
		assertThat(writing.get(10, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	default void readLocksAreReentrantAndRenewed() throws Exception {
		ReadWriteKey locks = ReadWriteKey.on(this, Duration.ofMillis(600));
		DistLock read = locks.read();
		read.lock();
		read.lock();
		Thread.sleep(1_500);
		assertThat(read.isHeldByCurrentThread()).isTrue();
		assertThat(locks.otherProcessGetsWrite()).isFalse();
		read.unlock();
		read.unlock();
		assertThat(locks.otherProcessGetsWrite()).isTrue();
	}

	@Test
	default void readAndWriteLocksTakeAFixedLeaseThatRunsOut() throws Exception {
		ReadWriteKey locks = ReadWriteKey.on(this);
		DistLock write = locks.write();
		DistLock read = locks.read();
		DistLock otherWrite = locks.otherWrite();
		DistLock otherRead = locks.otherRead();
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
		assertThat(locks.registry().localKeyCount()).isZero();
	}

}

package io.distlock.test.contract;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import io.distlock.core.DistLock;
import io.distlock.core.LockLostException;
import io.distlock.engine.AbstractLockRegistry;

import static io.distlock.test.contract.ContractSteps.onHolder;
import static io.distlock.test.contract.ContractSteps.runOnHolder;
import static io.distlock.test.contract.ContractSteps.tryAndUnlock;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * Downgrading a write lock to a read lock: granted while another process waits for the write
 * lock, the read lock outlives the write lock with a lease of its own, and a reader may not
 * upgrade. Each holder's steps run one by one on a thread of its own, each bounded, so that a step
 * that hangs fails the test (the hang detector's negative control shows it firing). Skipped where
 * the registry does not offer read/write locks.
 */
interface DowngradeContract extends LockRegistryContract {

	@Test
	default void aWriterDowngradesToAReaderAndTheReadLockOutlivesTheWriteLock() throws Exception {
		ReadWriteKey locks = ReadWriteKey.on(this);
		DistLock write = locks.write();
		DistLock read = locks.read();
		// The holder's steps run on a thread of their own, each bounded: a downgrade that waited
		// for its own write lock would hang there and fail here.
		ExecutorService holder = newHolderThread();
		runOnHolder(holder, write::lock);
		runOnHolder(holder, read::lock);
		runOnHolder(holder, read::unlock);
		assertThat(onHolder(holder, () -> read.tryLock(1, TimeUnit.SECONDS))).as("the writer takes the read lock")
			.isTrue();
		assertThat(locks.otherProcessGetsRead()).as("another process's reader while the write lock is held").isFalse();
		runOnHolder(holder, write::unlock);
		assertThat(onHolder(holder, read::isHeldByCurrentThread)).isTrue();
		assertThat(onHolder(holder, write::isHeldByCurrentThread)).isFalse();
		assertThat(locks.otherProcessGetsWrite()).as("another process's writer while the downgraded reader holds")
			.isFalse();
		assertThat(locks.otherProcessGetsRead()).as("another process's reader shares").isTrue();
		assertThat(locks.anotherThreadGetsWrite()).as("another thread's writer").isFalse();
		runOnHolder(holder, read::unlock);
		assertThat(locks.otherProcessGetsWrite()).as("a writer once the reader left").isTrue();
		assertThat(locks.registry().localKeyCount()).isZero();
	}

	@Test
	default void aDowngradeIsGrantedWhileAnotherProcessWaitsForTheWriteLock() throws Exception {
		ReadWriteKey locks = ReadWriteKey.on(this);
		AbstractLockRegistry third = registry();
		DistLock write = locks.write();
		DistLock read = locks.read();
		ExecutorService holder = newHolderThread();
		runOnHolder(holder, write::lock);
		DistLock otherWrite = locks.otherWrite();
		Future<Boolean> waitingWriter = executor().submit(() -> tryAndUnlock(otherWrite, Duration.ofSeconds(20)));
		awaitWriterWaiting(locks.other(), locks.key());
		// A waiting writer holds back new readers, but not the writer's own downgrade.
		assertThat(onHolder(holder, () -> read.tryLock(1, TimeUnit.SECONDS))).isTrue();
		runOnHolder(holder, write::unlock);
		assertThat(anotherThreadGets(() -> third.obtainReadWrite(locks.key()).writeLock()))
			.as("a third process's writer while the downgraded reader holds").isFalse();
		assertThat(waitingWriter.isDone()).as("the waiting writer while the downgraded reader holds").isFalse();
		runOnHolder(holder, read::unlock);
		assertThat(waitingWriter.get(20, TimeUnit.SECONDS)).as("the waiting writer once the reader left").isTrue();
		assertThat(locks.registry().localKeyCount()).isZero();
	}

	@Test
	default void theHangDetectorOfTheDowngradeTestsFiresOnAReaderThatDoesNotHoldTheWriteLock() throws Exception {
		ReadWriteKey locks = ReadWriteKey.on(this);
		DistLock write = locks.write();
		DistLock read = locks.read();
		ExecutorService holder = newHolderThread();
		ExecutorService reader = newHolderThread();
		runOnHolder(holder, write::lock);
		// The negative control: the same bounded step on a thread without the write lock waits, and
		// the bound reports it.
		Future<Void> blocked = reader.submit(() -> {
			read.lock();
			return null;
		});
		assertThatExceptionOfType(TimeoutException.class).isThrownBy(() -> blocked.get(500, TimeUnit.MILLISECONDS));
		runOnHolder(holder, write::unlock);
		blocked.get(10, TimeUnit.SECONDS);
		runOnHolder(reader, read::unlock);
		assertThat(locks.registry().localKeyCount()).isZero();
	}

	@Test
	default void aReaderAskingForTheWriteLockIsRefusedAtOnce() throws Exception {
		ReadWriteKey locks = ReadWriteKey.on(this);
		DistLock read = locks.read();
		DistLock write = locks.write();
		ExecutorService holder = newHolderThread();
		runOnHolder(holder, read::lock);
		// Bounded: an upgrade that waited for the thread's own read lock would hang there.
		assertThat(onHolder(holder, () -> catchThrowable(write::lock))).isInstanceOf(IllegalMonitorStateException.class)
			.hasMessageContaining("upgrade");
		assertThat(onHolder(holder, () -> catchThrowable(() -> write.tryLock(Duration.ofSeconds(30)))))
			.isInstanceOf(IllegalMonitorStateException.class);
		assertThat(onHolder(holder, () -> catchThrowable(write::tryLock))).isInstanceOf(IllegalMonitorStateException.class);
		assertThat(onHolder(holder, () -> catchThrowable(() -> write.tryLock(Duration.ZERO, Duration.ofSeconds(5)))))
			.isInstanceOf(IllegalMonitorStateException.class);
		assertThat(onHolder(holder, read::isHeldByCurrentThread)).as("the read lock is kept").isTrue();
		runOnHolder(holder, read::unlock);
		boolean written = onHolder(holder, () -> write.tryLock());
		assertThat(written).as("the write lock once the read lock is released").isTrue();
		runOnHolder(holder, write::unlock);
		assertThat(locks.registry().localKeyCount()).isZero();
	}

	@Test
	default void aDowngradeTakesTheReadLockWithItsOwnFixedLease() throws Exception {
		ReadWriteKey locks = ReadWriteKey.on(this);
		DistLock write = locks.write();
		DistLock read = locks.read();
		write.lock();
		assertThat(read.tryLock(Duration.ofSeconds(2), Duration.ofMillis(300))).isTrue();
		AtomicInteger lost = new AtomicInteger();
		read.lease().onLost((ex) -> lost.incrementAndGet());
		write.unlock();
		assertThat(read.lease().extend(Duration.ofMillis(400))).isTrue();
		assertThat(locks.otherProcessGetsWrite()).isFalse();
		await().atMost(Duration.ofSeconds(5)).until(() -> lost.get() == 1);
		assertThat(locks.otherProcessGetsWrite()).as("another process's writer once the downgraded read lease ran out")
			.isTrue();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(read::unlock);
		assertThat(locks.registry().localKeyCount()).isZero();
	}

}

package io.distlock.test.process;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.springframework.data.redis.core.StringRedisTemplate;

import io.distlock.core.DistLock;
import io.distlock.core.DistReadWriteLock;
import io.distlock.core.LockAcquisitionException;
import io.distlock.core.LockLease;
import io.distlock.core.LockLostException;
import io.distlock.core.LockRequest;
import io.distlock.detector.LeaseDeadline;
import io.distlock.redis.RedisLockRegistry;

/**
 * A process of the soak (T38): threads that run a mixed workload on a handful of keys until
 * told {@code STOP} on standard input, and log every hold to the oracle's list
 * {@code soak-history:<run>}. Arguments: lock port, oracle port, run id, seed, {@code locked}
 * or {@code unlocked} (the negative control: the same sections with no lock at all).
 * <p>
 * Six roles, one per thread: an exclusive lock (re-entered now and then), a multi-lock over the
 * exclusive key and a second key, a fair lock, a read/write lock, a hold that is not owned by
 * its thread and is released by another one, and a fixed lease that is sometimes outlived.
 * <p>
 * One entry per hold and key:
 * {@code key mode start end validUntil token holder signalled fixedLease asked firstDeadline lostAt},
 * times on {@link System#nanoTime()}
 * (one monotonic clock for every process of the host). {@code validUntil} is the latest deadline
 * the lease promised while it was valid (read through {@link LeaseDeadline} every few
 * milliseconds of the section), {@code signalled} is 1 when the holder was told of a loss (the
 * lease's callback ran or its release threw {@link LockLostException}), and {@code mode} is
 * {@code X} (exclusive), {@code W} (writer), {@code R} (reader) or {@code F} (fixed lease, whose
 * nanoseconds follow as a ninth field). For the diagnosis of a failure, not for the checks: when the
 * holder asked for the lock, the deadline the lease promised when the hold began (0 if it was no
 * longer valid) and when the loss callback ran (0 if it never did).
 * <p>
 * On {@code STOP} the threads finish their holds, the registry's local state must drain, and it
 * prints {@code DONE failures=<n> holds=<n> refused=<n> local=<n> held=<n> callbacks=<n>}.
 */
public final class SoakWorkerMain {

	static final Duration LEASE = Duration.ofSeconds(1);

	static final Duration FIXED_LEASE = Duration.ofMillis(300);

	private static final Duration WAIT = Duration.ofSeconds(2);

	private static volatile boolean stopping;

	private SoakWorkerMain() {
	}

	public static void main(String[] args) throws Exception {
		RedisLockRegistry registry = RedisLockRegistry.builder(WorkerThreads.connect(Integer.parseInt(args[0])))
			.leaseTime(LEASE)
			.build();
		StringRedisTemplate oracle = new StringRedisTemplate(WorkerThreads.connect(Integer.parseInt(args[1])));
		String run = args[2];
		long seed = Long.parseLong(args[3]);
		boolean locked = "locked".equals(args[4]);
		Thread stopper = new Thread(() -> {
			try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
				for (String line = in.readLine(); line != null; line = in.readLine()) {
					if (line.equals("STOP")) {
						break;
					}
				}
			}
			catch (Exception ex) {
				// The parent is gone: stop as well.
			}
			stopping = true;
		}, "soak-stopper");
		stopper.setDaemon(true);
		stopper.start();
		Log log = new Log(oracle, run, ProcessHandle.current().pid());
		System.out.println("READY pid=" + ProcessHandle.current().pid());
		System.out.flush();
		ExecutorService releasers = Executors.newFixedThreadPool(2);
		AtomicInteger refused = new AtomicInteger();
		int failures = WorkerThreads.run(6, (role) -> {
			Random random = new Random(seed * 31 + role);
			Roles roles = new Roles(registry, log, random, locked, releasers);
			while (!stopping) {
				try {
					roles.run(role);
				}
				catch (LockAcquisitionException ex) {
					// The store could not be reached or the wait ran out: part of the fault schedule.
					refused.incrementAndGet();
					WorkerThreads.sleep(Duration.ofMillis(20));
				}
				catch (LockLostException ex) {
					// A re-entry into a hold that was lost meanwhile is refused (DistLock's contract);
					// the hold itself was logged, with its signal, by the finally block.
					refused.incrementAndGet();
				}
			}
		});
		releasers.shutdown();
		if (!releasers.awaitTermination(30, TimeUnit.SECONDS)) {
			failures++;
		}
		long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
		while ((registry.localKeyCount() > 0 || !registry.heldLeases().isEmpty()) && System.nanoTime() < until) {
			WorkerThreads.sleep(Duration.ofMillis(20));
		}
		System.out.println("DONE failures=" + failures + " holds=" + log.holds.get() + " refused=" + refused.get()
				+ " local=" + registry.localKeyCount() + " held=" + registry.heldLeases().size() + " callbacks="
				+ log.extraCallbacks.get());
		System.out.flush();
		registry.close();
		System.exit(0);
	}

	/**
	 * The workload of each role.
	 */
	private static final class Roles {

		private final RedisLockRegistry registry;

		private final Log log;

		private final Random random;

		private final boolean locked;

		private final ExecutorService releasers;

		Roles(RedisLockRegistry registry, Log log, Random random, boolean locked, ExecutorService releasers) {
			this.registry = registry;
			this.log = log;
			this.random = random;
			this.locked = locked;
			this.releasers = releasers;
		}

		void run(int role) {
			switch (role) {
				case 0 -> exclusive(this.registry.obtain("soak:x"), "soak:x");
				case 1 -> {
					if (this.random.nextBoolean()) {
						multi();
					}
					else {
						exclusive(this.registry.obtain("soak:m"), "soak:m");
					}
				}
				case 2 -> exclusive(this.registry.obtainFair("soak:f"), "soak:f");
				case 3 -> readWrite();
				case 4 -> async();
				default -> fixed();
			}
		}

		private void exclusive(DistLock lock, String key) {
			if (!this.locked) {
				unlocked(key, "X");
				return;
			}
			long asked = System.nanoTime();
			if (!tryLock(lock)) {
				return;
			}
			Hold hold = new Hold(key, lock.lease(), asked);
			try {
				section(hold);
				if (this.random.nextInt(10) == 0 && lock.isHeldByCurrentThread()) {
					// Re-entered: no second grant, the same lease.
					lock.lock();
					try {
						section(hold);
					}
					finally {
						unlock(lock, hold);
					}
				}
			}
			finally {
				unlock(lock, hold);
				this.log.record(hold, "X");
			}
		}

		private void multi() {
			if (!this.locked) {
				unlocked("soak:x", "X");
				return;
			}
			DistLock lock = this.registry.obtainMulti("soak:x", "soak:m");
			long asked = System.nanoTime();
			if (!tryLock(lock)) {
				return;
			}
			Hold x = new Hold("soak:x", this.registry.obtain("soak:x").lease(), asked);
			Hold m = new Hold("soak:m", this.registry.obtain("soak:m").lease(), asked);
			try {
				long length = sectionLength();
				long end = System.nanoTime() + length;
				while (System.nanoTime() - end < 0) {
					x.observe();
					m.observe();
					WorkerThreads.sleep(Duration.ofMillis(5));
				}
			}
			finally {
				x.end = System.nanoTime();
				m.end = x.end;
				try {
					lock.unlock();
				}
				catch (LockLostException ex) {
					x.lostOnRelease = true;
					m.lostOnRelease = true;
				}
				this.log.record(x, "X");
				this.log.record(m, "X");
			}
		}

		private void readWrite() {
			boolean write = this.random.nextInt(3) == 0;
			if (!this.locked) {
				unlocked("soak:rw", write ? "W" : "R");
				return;
			}
			DistReadWriteLock readWrite = this.registry.obtainReadWrite("soak:rw");
			DistLock lock = write ? readWrite.writeLock() : readWrite.readLock();
			long asked = System.nanoTime();
			if (!tryLock(lock)) {
				return;
			}
			Hold hold = new Hold("soak:rw", lock.lease(), asked);
			try {
				section(hold);
			}
			finally {
				unlock(lock, hold);
				this.log.record(hold, write ? "W" : "R");
			}
		}

		private void async() {
			if (!this.locked) {
				unlocked("soak:a", "X");
				return;
			}
			long asked = System.nanoTime();
			LockLease lease = this.registry.acquire(LockRequest.of("soak:a").waitTime(WAIT).ownedByThread(false));
			Hold hold = new Hold("soak:a", lease, asked);
			long length = sectionLength();
			// Released by another thread than the one that acquired it; this one goes on at once.
			this.releasers.execute(() -> {
				try {
					sectionFor(hold, length);
				}
				finally {
					release(hold);
					this.log.record(hold, "X");
				}
			});
			WorkerThreads.sleep(Duration.ofMillis(this.random.nextInt(20)));
		}

		private void fixed() {
			if (!this.locked) {
				unlocked("soak:l", "F");
				return;
			}
			long asked = System.nanoTime();
			LockLease lease = this.registry.acquire(LockRequest.of("soak:l").waitTime(WAIT).leaseTime(FIXED_LEASE));
			Hold hold = new Hold("soak:l", lease, asked);
			try {
				// Up to 1.5 times the fixed lease: about one hold in three outlives it and must be told.
				sectionFor(hold, TimeUnit.MILLISECONDS.toNanos(this.random.nextInt((int) (FIXED_LEASE.toMillis() * 3 / 2))));
			}
			finally {
				release(hold);
				this.log.record(hold, "F");
			}
		}

		private void unlocked(String key, String mode) {
			Hold hold = new Hold(key, null, System.nanoTime());
			sectionFor(hold, sectionLength());
			hold.end = System.nanoTime();
			this.log.record(hold, mode);
		}

		private boolean tryLock(DistLock lock) {
			try {
				return lock.tryLock(WAIT);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return false;
			}
		}

		private void section(Hold hold) {
			sectionFor(hold, sectionLength());
		}

		/**
		 * Mostly short sections, one in twenty long enough (1.2 leases) to span a fault.
		 */
		private long sectionLength() {
			if (this.random.nextInt(20) == 0) {
				return LEASE.toNanos() * 6 / 5;
			}
			return TimeUnit.MILLISECONDS.toNanos(this.random.nextInt(30));
		}

		private static void sectionFor(Hold hold, long nanos) {
			long end = System.nanoTime() + nanos;
			do {
				hold.observe();
				WorkerThreads.sleep(Duration.ofMillis(5));
			}
			while (System.nanoTime() - end < 0);
		}

		/**
		 * A hold ends when its release is invoked (P1): another process may be granted the key as
		 * soon as Redis applies the release, before its reply is back.
		 */
		private static void unlock(DistLock lock, Hold hold) {
			hold.end = System.nanoTime();
			try {
				lock.unlock();
			}
			catch (LockLostException ex) {
				hold.lostOnRelease = true;
			}
		}

		private static void release(Hold hold) {
			hold.end = System.nanoTime();
			try {
				hold.lease.release();
			}
			catch (LockLostException ex) {
				hold.lostOnRelease = true;
			}
		}

	}

	/**
	 * One hold of one key, as its holder saw it.
	 */
	private static final class Hold {

		final String key;

		final LockLease lease;

		/** When the holder asked for the lock (for a multi-lock, for all its keys). */
		final long asked;

		final long start = System.nanoTime();

		final AtomicInteger callbacks = new AtomicInteger();

		/** No promise read yet: an empty hold for the exclusion check. */
		final AtomicLong validUntil = new AtomicLong(this.start);

		/** The deadline the lease promised when the hold began, or 0 if it was no longer valid. */
		final long firstDeadline;

		/** When the loss callback first ran, or 0. */
		final AtomicLong lostAt = new AtomicLong();

		volatile long end;

		volatile boolean lostOnRelease;

		Hold(String key, LockLease lease, long asked) {
			this.key = key;
			this.lease = lease;
			this.asked = asked;
			if (lease != null) {
				lease.onLost((lost) -> {
					this.lostAt.compareAndSet(0, System.nanoTime());
					this.callbacks.incrementAndGet();
				});
			}
			observe();
			this.firstDeadline = (this.validUntil.get() != this.start) ? this.validUntil.get() : 0;
		}

		/**
		 * Read the deadline the lease promises now, if it is still valid.
		 */
		void observe() {
			if (this.lease == null) {
				this.validUntil.set(Long.MAX_VALUE);
				return;
			}
			try {
				if (this.lease.isValid()) {
					this.validUntil.accumulateAndGet(LeaseDeadline.of(this.lease), Math::max);
				}
			}
			catch (IllegalStateException ex) {
				// Lost between isValid() and the reading: no promise to record.
			}
		}

	}

	/**
	 * Appends holds to the oracle.
	 */
	private static final class Log {

		private final StringRedisTemplate oracle;

		private final String list;

		private final long pid;

		final AtomicInteger holds = new AtomicInteger();

		final AtomicInteger extraCallbacks = new AtomicInteger();

		Log(StringRedisTemplate oracle, String run, long pid) {
			this.oracle = oracle;
			this.list = "soak-history:" + run;
			this.pid = pid;
		}

		void record(Hold hold, String mode) {
			int callbacks = hold.callbacks.get();
			if (callbacks > 1) {
				this.extraCallbacks.addAndGet(callbacks - 1);
			}
			boolean signalled = callbacks > 0 || hold.lostOnRelease;
			long token = (hold.lease != null) ? hold.lease.fencingToken() : 0;
			String entry = String.join(" ", List.of(hold.key, mode, Long.toString(hold.start), Long.toString(hold.end),
					Long.toString(hold.validUntil.get()), Long.toString(token),
					this.pid + "-" + Thread.currentThread().getName(), signalled ? "1" : "0",
					Long.toString(FIXED_LEASE.toNanos()), Long.toString(hold.asked), Long.toString(hold.firstDeadline),
					Long.toString(hold.lostAt.get())));
			this.oracle.opsForList().rightPush(this.list, entry);
			this.holds.incrementAndGet();
		}

	}

}

package io.distlock.test.memory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.distlock.core.DistLock;
import io.distlock.core.LockListener;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * T35: the local state of a registry (hold counts, owner, the local gate and its handoffs) is
 * linearizable: every concurrent history of {@code lock}, {@code tryLock}, {@code unlock} and
 * {@code isHeldByCurrentThread} on one key is explained by some order of the operations, each
 * taking effect between its call and its return, in a sequential reentrant mutex.
 * <p>
 * The histories are recorded from real threads (a stress test) and checked with the
 * Wing–Gong search (memoised, as in Lowe's and Knossos's checkers). Lincheck would drive the
 * same operations and explore interleavings itself, but a lock's sequential specification
 * depends on <em>which</em> thread calls (an {@code unlock} from a non-owner fails,
 * {@code isHeldByCurrentThread} answers per thread) and {@code lock()} parks until a handoff;
 * here the specification simply takes the caller as an argument and a blocked {@code lock()}
 * is an operation that returns late.
 * <p>
 * The negative control runs the same rounds on a lock with a check-then-act race; the checker
 * must find a history that no order explains.
 */
@Timeout(60)
class LocalLockLinearizabilityTests {

	private final ExecutorService threads = Executors.newFixedThreadPool(4);

	@AfterEach
	void stop() {
		this.threads.shutdownNow();
	}

	@Test
	void mixedOperationsOfThreeThreadsAreLinearizable() throws Exception {
		InMemoryLockRegistry registry = new InMemoryLockRegistry(Duration.ofSeconds(30), LockListener.NONE);
		Result result = rounds(1_000, 3, false, (round) -> new RegistryLock(registry.obtain("t35-mixed:" + round)));
		assertThat(result.failures).as("histories no sequential order explains").isEmpty();
		assertThat(registry.localKeyCount()).as("local gates left after every round").isZero();
		System.out.println("T35 mixed: " + result);
	}

	@Test
	void handoffHeavyHistoriesOfFourThreadsAreLinearizable() throws Exception {
		InMemoryLockRegistry registry = new InMemoryLockRegistry(Duration.ofSeconds(30), LockListener.NONE);
		Result result = rounds(500, 4, true, (round) -> new RegistryLock(registry.obtain("t35-handoff:" + round)));
		assertThat(result.failures).as("histories no sequential order explains").isEmpty();
		assertThat(registry.localKeyCount()).as("local gates left after every round").isZero();
		System.out.println("T35 handoff-heavy: " + result);
	}

	@Test
	void negativeControlARacyLockIsNotLinearizable() throws Exception {
		Result result = rounds(200, 3, false, (round) -> new RacyLock());
		assertThat(result.failures).as("histories of the racy lock that no order explains").isNotEmpty();
		System.out.println("T35 control: " + result.failures.size() + " of " + result.rounds
				+ " racy histories not linearizable, for example " + result.failures.get(0));
	}

	private Result rounds(int rounds, int threadCount, boolean handoffHeavy, LockFactory locks) throws Exception {
		Result result = new Result(rounds);
		Random seeds = new Random(35);
		for (int round = 0; round < rounds; round++) {
			TestLock lock = locks.create(round);
			AtomicLong clock = new AtomicLong();
			CyclicBarrier start = new CyclicBarrier(threadCount);
			List<Future<List<Op>>> futures = new ArrayList<>();
			for (int t = 0; t < threadCount; t++) {
				int thread = t;
				long seed = seeds.nextLong();
				futures.add(this.threads.submit(() -> program(lock, thread, new Random(seed), handoffHeavy, clock, start)));
			}
			List<Op> history = new ArrayList<>();
			for (Future<List<Op>> future : futures) {
				history.addAll(future.get(10, TimeUnit.SECONDS));
			}
			result.operations += history.size();
			if (!Linearizability.check(history)) {
				result.failures.add(history.toString());
			}
		}
		return result;
	}

	/**
	 * One thread's random program; it ends by unlocking every hold it still has, so that threads
	 * blocked in {@code lock()} always get their turn.
	 */
	private static List<Op> program(TestLock lock, int thread, Random random, boolean handoffHeavy, AtomicLong clock,
			CyclicBarrier start) throws Exception {
		List<Op> ops = new ArrayList<>();
		int holds = 0;
		start.await(5, TimeUnit.SECONDS);
		int length = handoffHeavy ? 4 : 5;
		for (int i = 0; i < length; i++) {
			Kind kind = handoffHeavy ? ((holds == 0) ? Kind.LOCK : Kind.UNLOCK) : Kind.values()[random.nextInt(4)];
			Op op = call(lock, thread, kind, clock);
			ops.add(op);
			if ((kind == Kind.LOCK) || (kind == Kind.TRY_LOCK && op.result.equals("true"))) {
				holds++;
			}
			if (kind == Kind.UNLOCK && op.result.equals("ok")) {
				holds--;
			}
		}
		while (holds > 0) {
			ops.add(call(lock, thread, Kind.UNLOCK, clock));
			holds--;
		}
		return ops;
	}

	private static Op call(TestLock lock, int thread, Kind kind, AtomicLong clock) {
		long invoked = clock.incrementAndGet();
		String result;
		try {
			result = switch (kind) {
				case LOCK -> {
					lock.lock();
					yield "ok";
				}
				case TRY_LOCK -> Boolean.toString(lock.tryLock());
				case UNLOCK -> {
					lock.unlock();
					yield "ok";
				}
				case IS_HELD -> Boolean.toString(lock.isHeldByCurrentThread());
			};
		}
		catch (IllegalMonitorStateException ex) {
			result = "not-owner";
		}
		return new Op(thread, kind, result, invoked, clock.incrementAndGet());
	}

	enum Kind {

		LOCK, TRY_LOCK, UNLOCK, IS_HELD

	}

	/**
	 * One operation: who called it, what it returned, and its call and return on a shared
	 * counter (so that one operation precedes another exactly when it returned before the other
	 * was called).
	 */
	record Op(int thread, Kind kind, String result, long invoked, long returned) {

		@Override
		public String toString() {
			return "t" + this.thread + " " + this.kind + "=" + this.result + " [" + this.invoked + "," + this.returned + "]";
		}

	}

	/**
	 * The Wing–Gong linearizability check against a sequential reentrant mutex: state is the
	 * owner and its hold count; {@code lock} by another thread than the owner cannot take effect
	 * (it waits), {@code tryLock} succeeds when free or re-entered, {@code unlock} by a non-owner
	 * answers {@code not-owner}.
	 */
	static final class Linearizability {

		private final List<Op> ops;

		private final Set<String> seen = new HashSet<>();

		private Linearizability(List<Op> ops) {
			this.ops = ops;
		}

		static boolean check(List<Op> ops) {
			if (ops.size() > 63) {
				throw new IllegalArgumentException("At most 63 operations per history, not " + ops.size());
			}
			return new Linearizability(ops).search(0L, -1, 0);
		}

		private boolean search(long done, int owner, int count) {
			if (Long.bitCount(done) == this.ops.size()) {
				return true;
			}
			if (!this.seen.add(done + ":" + owner + ":" + count)) {
				return false;
			}
			long firstReturn = Long.MAX_VALUE;
			for (int i = 0; i < this.ops.size(); i++) {
				if ((done & (1L << i)) == 0) {
					firstReturn = Math.min(firstReturn, this.ops.get(i).returned());
				}
			}
			for (int i = 0; i < this.ops.size(); i++) {
				Op op = this.ops.get(i);
				// Only an operation called before every other pending one returned can go next.
				if ((done & (1L << i)) != 0 || op.invoked() > firstReturn) {
					continue;
				}
				int t = op.thread();
				boolean ownsIt = owner == t;
				boolean free = owner == -1;
				long next = done | (1L << i);
				boolean explained = switch (op.kind()) {
					case LOCK -> (free || ownsIt) && search(next, t, count + 1);
					case TRY_LOCK -> (free || ownsIt) ? op.result().equals("true") && search(next, t, count + 1)
							: op.result().equals("false") && search(next, owner, count);
					case UNLOCK -> ownsIt ? op.result().equals("ok")
							&& search(next, (count == 1) ? -1 : owner, count - 1)
							: op.result().equals("not-owner") && search(next, owner, count);
					case IS_HELD -> op.result().equals(Boolean.toString(ownsIt)) && search(next, owner, count);
				};
				if (explained) {
					return true;
				}
			}
			return false;
		}

	}

	interface TestLock {

		void lock();

		boolean tryLock();

		void unlock();

		boolean isHeldByCurrentThread();

	}

	@FunctionalInterface
	interface LockFactory {

		TestLock create(int round);

	}

	private record RegistryLock(DistLock distLock) implements TestLock {

		@Override
		public void lock() {
			this.distLock.lock();
		}

		@Override
		public boolean tryLock() {
			return this.distLock.tryLock();
		}

		@Override
		public void unlock() {
			this.distLock.unlock();
		}

		@Override
		public boolean isHeldByCurrentThread() {
			return this.distLock.isHeldByCurrentThread();
		}

	}

	/**
	 * The negative control: a reentrant lock whose acquisition checks and then sets the owner in
	 * two steps, so that two threads can both find it free.
	 */
	private static final class RacyLock implements TestLock {

		private volatile Thread owner;

		private volatile int count;

		private final AtomicInteger freeSightings = new AtomicInteger();

		private final AtomicInteger takers = new AtomicInteger();

		@Override
		public void lock() {
			// Bounded, so that a round whose owner field the race corrupted still ends.
			long giveUp = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
			while (!tryLock()) {
				if (System.nanoTime() - giveUp > 0) {
					this.owner = Thread.currentThread();
					this.count = 1;
					return;
				}
				Thread.onSpinWait();
			}
		}

		@Override
		public boolean tryLock() {
			Thread current = Thread.currentThread();
			if (this.owner == current) {
				this.count++;
				return true;
			}
			if (this.owner != null) {
				return false;
			}
			// The race window: another thread can find the lock free meanwhile. The first two threads
			// to find it free are made to race whatever the scheduler does: the first waits (bounded)
			// until a second has found it free too, both take it, and neither returns before both
			// have, so that their holds overlap. A control that only fires when a loaded machine
			// happens to interleave the threads would prove nothing.
			int sighting = this.freeSightings.incrementAndGet();
			if (sighting == 1) {
				awaitCount(this.freeSightings, 2);
			}
			else if (sighting > 2) {
				LockSupport.parkNanos(200_000);
			}
			this.owner = current;
			this.count = 1;
			if (sighting <= 2) {
				this.takers.incrementAndGet();
				awaitCount(this.takers, 2);
			}
			return true;
		}

		private static void awaitCount(AtomicInteger counter, int count) {
			long giveUp = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
			while (counter.get() < count && System.nanoTime() - giveUp < 0) {
				LockSupport.parkNanos(50_000);
			}
		}

		@Override
		public void unlock() {
			if (this.owner != Thread.currentThread()) {
				throw new IllegalMonitorStateException();
			}
			if (--this.count == 0) {
				this.owner = null;
			}
		}

		@Override
		public boolean isHeldByCurrentThread() {
			return this.owner == Thread.currentThread();
		}

	}

	private static final class Result {

		final int rounds;

		final List<String> failures = new ArrayList<>();

		int operations;

		Result(int rounds) {
			this.rounds = rounds;
		}

		@Override
		public String toString() {
			return this.rounds + " histories, " + this.operations + " operations, " + this.failures.size()
					+ " not linearizable";
		}

	}

}

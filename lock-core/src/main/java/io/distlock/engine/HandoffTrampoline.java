package io.distlock.engine;

import java.util.ArrayDeque;

/**
 * Runs the continuation of an asynchronous waiter that takes over a grant handed over by an
 * asynchronous release, on the releasing thread but only once that release has returned, and
 * never nested in another such continuation.
 * <p>
 * Why: asynchronous code continues from the grant. Run where the gate admits it (at the end of
 * the previous holder's release, after its {@code onReleased}), the next holder's code would
 * start inside that release, and a holder that releases synchronously would nest the next one
 * inside it, one stack level per holder, until the stack overflows. Run on the registry's timer, as it
 * once was, it costs a thread wake-up per grant. Here the release that hands a grant over runs
 * in a scope ({@link #open}); the continuations deferred while it runs ({@link #defer}) run once
 * it has returned and closes the scope, in the order they were deferred, by one loop on that
 * thread. A continuation that releases and hands over again defers the next one to the same
 * loop, so the stack stays as deep as one continuation whatever the number of synchronous
 * handoffs in a row.
 * <p>
 * Nothing waits here and no lock is held while a continuation runs. A continuation deferred
 * here must ask nothing of the store: one that finds it has to goes on on the timer, as anything
 * after a wait does.
 */
final class HandoffTrampoline {

	private static final ThreadLocal<Loop> loops = ThreadLocal.withInitial(Loop::new);

	/** The scope of a release inside another one: the outer one runs what it defers. */
	private static final Scope NESTED = () -> {
	};

	private HandoffTrampoline() {
	}

	/**
	 * Open the scope of a release on the calling thread: closing it runs the continuations
	 * deferred meanwhile, one after the other, and those they defer. Inside a continuation that
	 * this thread's loop runs, closing it does nothing: the continuations join that loop.
	 * @return the scope, to close in a {@code finally} block (try-with-resources) once the
	 * release has returned
	 */
	static Scope open() {
		Loop loop = loops.get();
		if (loop.running) {
			return NESTED;
		}
		loop.running = true;
		return loop;
	}

	/**
	 * Defer a continuation to the loop of the release running on the calling thread, if any.
	 * @param continuation the continuation
	 * @return whether it was deferred; {@code false} when no scope is open on this thread, and
	 * the caller must run it elsewhere
	 */
	static boolean defer(Runnable continuation) {
		Loop loop = loops.get();
		if (!loop.running) {
			return false;
		}
		loop.deferred.addLast(continuation);
		return true;
	}

	/** The scope of one release; closing it throws no checked exception. */
	interface Scope extends AutoCloseable {

		@Override
		void close();

	}

	/** The loop of one thread, and the scope of its outermost release. */
	private static final class Loop implements Scope {

		private final ArrayDeque<Runnable> deferred = new ArrayDeque<>();

		private boolean running;

		/**
		 * Run every deferred continuation, those they defer included, and end the loop. One that
		 * throws does not keep the others from running: each of them is a waiter that the gate
		 * admitted already, which nothing else would ever let in. The first failure is thrown
		 * once all have run (try-with-resources adds it to what the release threw, if anything).
		 */
		@Override
		public void close() {
			Throwable failure = null;
			try {
				for (Runnable next = this.deferred.pollFirst(); next != null; next = this.deferred.pollFirst()) {
					try {
						next.run();
					}
					catch (RuntimeException | Error ex) {
						if (failure == null) {
							failure = ex;
						}
						else {
							failure.addSuppressed(ex);
						}
					}
				}
			}
			finally {
				this.running = false;
			}
			if (failure instanceof Error error) {
				throw error;
			}
			if (failure != null) {
				throw (RuntimeException) failure;
			}
		}

	}

}

package io.distlock.engine;

import java.util.ArrayDeque;
import java.util.function.Supplier;

/**
 * Runs the continuation of an asynchronous waiter that takes over a grant handed over by an
 * asynchronous release, on the releasing thread but only once that release has returned, and
 * never nested in another such continuation.
 * <p>
 * Why: asynchronous code continues from the grant. Run where the gate admits it, the next
 * holder's code would start inside the previous holder's release, before that holder's
 * {@code onReleased}, and a holder that releases synchronously would nest the next one inside
 * it, one stack level per holder, until the stack overflows. Run on the registry's timer, as it
 * once was, it costs a thread wake-up per grant. Here the release that hands a grant over is run
 * by {@link #release}; the continuations deferred while it runs ({@link #defer}) run after it
 * returned, in the order they were deferred, by one loop on that thread. A continuation that
 * releases and hands over again defers the next one to the same loop, so the stack stays as deep
 * as one continuation whatever the number of synchronous handoffs in a row.
 * <p>
 * Nothing waits here and no lock is held while a continuation runs. A continuation deferred
 * here must ask nothing of the store: one that finds it has to goes on on the timer, as anything
 * after a wait does.
 */
final class HandoffTrampoline {

	private static final ThreadLocal<Loop> loops = ThreadLocal.withInitial(Loop::new);

	private HandoffTrampoline() {
	}

	/**
	 * Run a release on the calling thread, then the continuations it deferred, one after the
	 * other. Inside a continuation that this thread's loop runs, just run the release: its
	 * continuations join that loop.
	 * @param release the release
	 * @return what the release returned
	 */
	static <T> T release(Supplier<T> release) {
		Loop loop = loops.get();
		if (loop.running) {
			return release.get();
		}
		loop.running = true;
		T result;
		try {
			result = release.get();
		}
		catch (RuntimeException | Error ex) {
			loop.runDeferred(ex);
			throw ex;
		}
		loop.runDeferred(null);
		return result;
	}

	/**
	 * Defer a continuation to the loop of the release running on the calling thread, if any.
	 * @param continuation the continuation
	 * @return whether it was deferred; {@code false} when no release run by {@link #release}
	 * runs on this thread, and the caller must run it elsewhere
	 */
	static boolean defer(Runnable continuation) {
		Loop loop = loops.get();
		if (!loop.running) {
			return false;
		}
		loop.deferred.addLast(continuation);
		return true;
	}

	/** The loop of one thread. */
	private static final class Loop {

		private final ArrayDeque<Runnable> deferred = new ArrayDeque<>();

		private boolean running;

		/**
		 * Run every deferred continuation, those they defer included, and end the loop. One that
		 * throws does not keep the others from running: each of them is a waiter that the gate
		 * admitted already, which nothing else would ever let in.
		 * @param primary what the release threw, to which a failure here is added, or
		 * {@code null}
		 */
		void runDeferred(Throwable primary) {
			Throwable failure = primary;
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
			if (failure != null && primary == null) {
				throwUnchecked(failure);
			}
		}

		private static void throwUnchecked(Throwable failure) {
			if (failure instanceof Error error) {
				throw error;
			}
			throw (RuntimeException) failure;
		}

	}

}

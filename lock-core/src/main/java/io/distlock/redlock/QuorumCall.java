package io.distlock.redlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Predicate;


/**
 * Sends one operation to every node at once and decides on the answers as they arrive, without
 * a thread of its own: as soon as a quorum succeeded (when asked to stop there), a quorum can no
 * longer succeed, every node answered, or the per-node timeout passed. The nodes are asked at
 * the same moment, so one timer stands for each node's timeout: a node that does not answer in
 * time costs the timeout once, not per node.
 */
final class QuorumCall {

	private final List<RedlockNode> nodes;

	private final int quorum;

	private final Duration perNodeTimeout;

	QuorumCall(List<RedlockNode> nodes, Duration perNodeTimeout) {
		this.nodes = nodes;
		this.quorum = nodes.size() / 2 + 1;
		this.perNodeTimeout = perNodeTimeout;
	}

	int quorum() {
		return this.quorum;
	}

	int size() {
		return this.nodes.size();
	}

	/**
	 * Send the operation to every node.
	 * @param operation the operation on one node; it must not block
	 * @param success which answers count toward the quorum
	 * @param until when the answers decide
	 * @return the call, whose {@link Call#decided()} completes with the outcomes once decided
	 */
	<T> Call<T> start(Function<RedlockNode, CompletableFuture<T>> operation, Predicate<T> success, Until until) {
		Call<T> call = new Call<>(this.nodes.size(), this.quorum, success, until);
		// The timer is armed before any node is asked, so that every node gets the same time. It
		// is never cancelled (time up on a decided call changes nothing): cancelling it when the
		// last answer comes would take the timer queue's lock on the driver's event loop. Each
		// timer lives for one per-node timeout, on the JDK's delay thread (as a timeout of
		// CompletableFuture.orTimeout does).
		CompletableFuture.delayedExecutor(this.perNodeTimeout.toNanos(), TimeUnit.NANOSECONDS, Runnable::run)
			.execute(call::timeUp);
		for (int i = 0; i < this.nodes.size(); i++) {
			CompletableFuture<T> answer;
			try {
				answer = operation.apply(this.nodes.get(i));
			}
			catch (RuntimeException ex) {
				answer = CompletableFuture.failedFuture(ex);
			}
			call.futures.add(answer);
			int node = i;
			answer.whenComplete((result, failure) -> call.answered(node, result, failure));
		}
		call.allSent();
		return call;
	}

	/**
	 * Return how many nodes answered {@code true} in time.
	 * @param outcomes the outcomes of a call
	 * @return the count
	 */
	static int succeeded(List<Outcome<Boolean>> outcomes) {
		int count = 0;
		for (Outcome<Boolean> outcome : outcomes) {
			if (outcome.ok() && outcome.result()) {
				count++;
			}
		}
		return count;
	}

	/**
	 * Return how many nodes did not answer in time or failed: what they hold is unknown.
	 * @param outcomes the outcomes of a call
	 * @return the count
	 */
	static int unknown(List<? extends Outcome<?>> outcomes) {
		int unknown = 0;
		for (Outcome<?> outcome : outcomes) {
			if (!outcome.ok()) {
				unknown++;
			}
		}
		return unknown;
	}

	/**
	 * When a call's answers decide.
	 */
	enum Until {

		/** As soon as a quorum succeeded, or can no longer succeed. */
		QUORUM_SUCCEEDED,

		/** When every node answered, or a quorum can no longer succeed. */
		EVERY_ANSWER

	}

	/**
	 * One operation sent to every node: the answers so far, the decision, and each node's
	 * operation, which may still run after the decision.
	 *
	 * @param <T> the operation's result type
	 */
	static final class Call<T> {

		private final int quorum;

		private final Predicate<T> success;

		private final Until until;

		private final List<CompletableFuture<T>> futures;

		private final List<Outcome<T>> answers;

		private final CompletableFuture<List<Outcome<T>>> decided = new CompletableFuture<>();

		private int done;

		private int succeeded;

		private boolean allSent;

		private boolean timeUp;

		private boolean completed;

		private Call(int size, int quorum, Predicate<T> success, Until until) {
			this.quorum = quorum;
			this.success = success;
			this.until = until;
			this.futures = new ArrayList<>(size);
			this.answers = new ArrayList<>(size);
			for (int i = 0; i < size; i++) {
				this.answers.add(new Outcome<>(i, false, null, null));
			}
		}

		/**
		 * Return a future of the outcomes, one per node in node order, as they stood when the
		 * call was decided: a node that answered later counts as not answered.
		 * @return the decision
		 */
		CompletableFuture<List<Outcome<T>>> decided() {
			return this.decided;
		}

		/**
		 * Return each node's operation, in node order.
		 * @return the operations
		 */
		List<CompletableFuture<T>> futures() {
			return this.futures;
		}

		/**
		 * Return a future that completes when every node's operation has ended, including those
		 * still running when the call was decided.
		 * @return the end of every operation
		 */
		CompletableFuture<Void> allDone() {
			return CompletableFuture.allOf(this.futures.stream()
				.map((future) -> future.handle((result, failure) -> null))
				.toArray(CompletableFuture[]::new));
		}

		private void answered(int node, T result, Throwable failure) {
			synchronized (this) {
				if (this.completed) {
					return;
				}
				Throwable cause = (failure instanceof CompletionException && failure.getCause() != null)
						? failure.getCause() : failure;
				this.answers.set(node, new Outcome<>(node, true, (failure == null) ? result : null, cause));
				this.done++;
				if (failure == null && this.success.test(result)) {
					this.succeeded++;
				}
			}
			decide();
		}

		private void allSent() {
			synchronized (this) {
				this.allSent = true;
			}
			decide();
		}

		private void timeUp() {
			synchronized (this) {
				this.timeUp = true;
			}
			decide();
		}

		/**
		 * Complete the decision if the answers so far decide it, or if the time is up; never
		 * before every node was asked, so that the decision's dependents see every operation.
		 * Completed outside the lock: the dependents run on this thread.
		 */
		private void decide() {
			List<Outcome<T>> outcomes;
			synchronized (this) {
				if (this.completed || !this.allSent) {
					return;
				}
				int size = this.answers.size();
				boolean decidedNow = this.timeUp
						|| (this.until == Until.QUORUM_SUCCEEDED && this.succeeded >= this.quorum)
						|| this.succeeded + (size - this.done) < this.quorum || this.done == size;
				if (!decidedNow) {
					return;
				}
				this.completed = true;
				outcomes = List.copyOf(this.answers);
			}
			this.decided.complete(outcomes);
		}

	}

	/**
	 * What one node answered, if it answered.
	 *
	 * @param <T> the operation's result type
	 * @param node the node's index
	 * @param answered whether it answered in time
	 * @param result its result when it answered without an error
	 * @param failure its error, if any
	 */
	record Outcome<T>(int node, boolean answered, T result, Throwable failure) {

		boolean ok() {
			return this.answered && this.failure == null;
		}

	}

}

package io.distlock.redlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Predicate;

import io.distlock.redis.RedisLockStore;

/**
 * Runs one operation on every node in parallel and waits at most the per-node timeout: until a
 * quorum succeeded (when asked to stop early), until a quorum can no longer succeed, or until
 * every node answered. A node that does not answer in time costs the timeout once, not per node.
 */
final class QuorumCall {

	private final List<RedisLockStore> nodes;

	private final int quorum;

	private final Duration perNodeTimeout;

	private final ExecutorService executor;

	QuorumCall(List<RedisLockStore> nodes, Duration perNodeTimeout, ExecutorService executor) {
		this.nodes = nodes;
		this.quorum = nodes.size() / 2 + 1;
		this.perNodeTimeout = perNodeTimeout;
		this.executor = executor;
	}

	int quorum() {
		return this.quorum;
	}

	int size() {
		return this.nodes.size();
	}

	<T> List<Outcome<T>> call(Function<RedisLockStore, T> operation, Predicate<T> success, boolean stopAtQuorum) {
		return start(operation, success, stopAtQuorum).outcomes();
	}

	/**
	 * Run the operation on every node and wait as {@link #call} does, also returning a future
	 * that completes when every node's operation has ended, including those still running when
	 * the call returned.
	 */
	<T> Call<T> start(Function<RedisLockStore, T> operation, Predicate<T> success, boolean stopAtQuorum) {
		Semaphore finished = new Semaphore(0);
		List<CompletableFuture<T>> futures = new ArrayList<>(this.nodes.size());
		for (RedisLockStore node : this.nodes) {
			CompletableFuture<T> future = CompletableFuture.supplyAsync(() -> operation.apply(node), this.executor);
			future.whenComplete((result, failure) -> finished.release());
			futures.add(future);
		}
		long deadline = System.nanoTime() + this.perNodeTimeout.toNanos();
		// Waited out whatever the caller's interrupt flag says: an interrupted holder's release
		// must still learn which nodes gave the key back. The bound is the per-node timeout.
		boolean interrupted = false;
		while (true) {
			int done = 0;
			int succeeded = 0;
			for (CompletableFuture<T> future : futures) {
				if (future.isDone()) {
					done++;
					if (!future.isCompletedExceptionally() && success.test(future.getNow(null))) {
						succeeded++;
					}
				}
			}
			boolean decided = (stopAtQuorum && succeeded >= this.quorum)
					|| succeeded + (futures.size() - done) < this.quorum || done == futures.size();
			long left = deadline - System.nanoTime();
			if (decided || left <= 0) {
				break;
			}
			try {
				finished.tryAcquire(left, TimeUnit.NANOSECONDS);
			}
			catch (InterruptedException ex) {
				interrupted = true;
			}
		}
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
		List<Outcome<T>> outcomes = new ArrayList<>(futures.size());
		for (int i = 0; i < futures.size(); i++) {
			outcomes.add(Outcome.of(futures.get(i), i));
		}
		CompletableFuture<Void> allDone = CompletableFuture.allOf(futures.stream()
			.map((future) -> future.handle((result, failure) -> null))
			.toArray(CompletableFuture[]::new));
		return new Call<>(outcomes, futures, allDone);
	}

	/**
	 * What a call returned, and the operations still running.
	 *
	 * @param <T> the operation's result type
	 * @param outcomes one outcome per node, in node order
	 * @param futures each node's operation
	 * @param allDone completes when every node's operation has ended
	 */
	record Call<T>(List<Outcome<T>> outcomes, List<CompletableFuture<T>> futures, CompletableFuture<Void> allDone) {
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

		static <T> Outcome<T> of(CompletableFuture<T> future, int node) {
			if (!future.isDone()) {
				return new Outcome<>(node, false, null, null);
			}
			try {
				return new Outcome<>(node, true, future.join(), null);
			}
			catch (RuntimeException ex) {
				return new Outcome<>(node, true, null, (ex.getCause() != null) ? ex.getCause() : ex);
			}
		}

		boolean ok() {
			return this.answered && this.failure == null;
		}

	}

}

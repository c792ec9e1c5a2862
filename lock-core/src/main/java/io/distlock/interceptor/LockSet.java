package io.distlock.interceptor;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;

import org.aopalliance.intercept.MethodInvocation;

import io.distlock.core.LockAcquisitionException;
import io.distlock.core.LockContext;
import io.distlock.core.LockLease;
import io.distlock.core.LockLostException;
import io.distlock.core.LockRegistry;
import io.distlock.core.LockRegistryIntrospection;
import io.distlock.core.LockRequest;
import io.distlock.interceptor.LockDefinition.ResultKind;

/**
 * The leases of one call of an annotated method: all of its keys, taken in their global order
 * within one wait time, or none; held while the method runs (or until its stage completes) and
 * released in reverse order.
 */
final class LockSet {

	private final List<LockLease> leases;

	private LockSet(List<LockLease> leases) {
		this.leases = leases;
	}

	/**
	 * Take every key or none.
	 * @throws io.distlock.core.LockAcquisitionException if one key is not acquired in time; the
	 * keys taken before it are released
	 */
	static LockSet acquire(LockRegistry registry, LockDefinition definition, List<String> sortedKeys,
			Duration waitTime) {
		if (sortedKeys.size() > 1 && registry instanceof LockRegistryIntrospection introspection) {
			// Every key the registry refuses (too long, say) fails the call before any is taken.
			sortedKeys.forEach(introspection::lockKey);
		}
		long deadline = System.nanoTime() + LockRequest.boundedWait(waitTime).toNanos();
		boolean async = definition.resultKind() == ResultKind.COMPLETION_STAGE;
		List<LockLease> acquired = new ArrayList<>(sortedKeys.size());
		try {
			for (String key : sortedKeys) {
				Duration remaining = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
				// An asynchronous method's lock outlives the call: the calling thread must not
				// re-enter it while the stage runs, and the completing thread releases it.
				acquired.add(registry.acquire(LockRequest.of(key)
					.name(definition.name())
					.waitTime(remaining)
					.leaseTime(definition.leaseTime())
					.fair(definition.fair())
					.ownedByThread(!async)));
			}
		}
		catch (LockAcquisitionException ex) {
			new LockSet(acquired).release(Duration.ZERO, ex);
			if (ex.getCause() != null) {
				throw ex;
			}
			// Say what the annotation asked for: the whole wait, not what was left for this key.
			throw new LockAcquisitionException(ex.getKey(), "Could not acquire lock '" + definition.name()
					+ "' for key '" + ex.getKey() + "' within " + waitTime.toMillis() + "ms", null);
		}
		catch (RuntimeException ex) {
			new LockSet(acquired).release(Duration.ZERO, ex);
			throw ex;
		}
		if (acquired.stream().allMatch(LockLease::isValid)) {
			return new LockSet(acquired);
		}
		// A key taken first was lost while a later one was waited for (a freeze or a restart
		// longer than its lease): give every key back and try again while the wait lasts, rather
		// than run the method with a lost lock.
		new LockSet(acquired).releaseQuietly();
		Duration left = Duration.ofNanos(deadline - System.nanoTime());
		if (left.isNegative() || left.isZero()) {
			throw new LockAcquisitionException(sortedKeys.get(0), "Could not acquire lock '" + definition.name()
					+ "' for all of its keys within " + waitTime.toMillis() + "ms", null);
		}
		return acquire(registry, definition, sortedKeys, left);
	}

	/**
	 * Run the call under the leases and release them when it is done.
	 */
	Object invoke(MethodInvocation invocation, LockDefinition definition) throws Throwable {
		this.leases.forEach(LockContext::bind);
		Object result;
		try {
			result = invocation.proceed();
		}
		catch (Throwable ex) {
			unbind();
			release(definition.holdAtLeast(), ex);
			throw ex;
		}
		unbind();
		if (definition.resultKind() == ResultKind.COMPLETION_STAGE && result != null) {
			return releaseOnCompletion((CompletionStage<?>) result, definition.holdAtLeast());
		}
		release(definition.holdAtLeast(), null);
		return result;
	}

	private CompletableFuture<Object> releaseOnCompletion(CompletionStage<?> stage, Duration holdAtLeast) {
		CompletableFuture<Object> released = new CompletableFuture<>();
		Thread caller = Thread.currentThread();
		AtomicBoolean returned = new AtomicBoolean();
		stage.whenComplete((value, failure) -> {
			Throwable cause = unwrap(failure);
			// Released without blocking: the stage may complete on the Redis driver's thread,
			// which must read the releases' replies itself.
			releaseAsync(this.leases.size() - 1, holdAtLeast, null).whenComplete((lost, ignored) -> {
				if (cause != null) {
					if (lost != null) {
						cause.addSuppressed(lost);
					}
					released.completeExceptionally(cause);
				}
				else if (lost != null) {
					// The stage's own result cannot be trusted: the lock was lost while it ran.
					released.completeExceptionally(lost);
				}
				else {
					released.complete(value);
				}
			});
			if (!returned.get() && Thread.currentThread() == caller) {
				// Completed before the call returned: the caller gets the stage once the locks
				// are released, as for any other result.
				released.handle((any, error) -> null).join();
			}
		});
		returned.set(true);
		return released;
	}

	/**
	 * Release the leases from {@code index} down to the first, one after the other, without
	 * blocking.
	 * @return completes with the first failure (a loss), later ones suppressed in it, or
	 * {@code null}
	 */
	private CompletableFuture<Throwable> releaseAsync(int index, Duration holdAtLeast, Throwable failed) {
		if (index < 0) {
			return CompletableFuture.completedFuture(failed);
		}
		return this.leases.get(index).releaseAsync(holdAtLeast).handle((done, failure) -> {
			Throwable cause = unwrap(failure);
			if (cause == null) {
				return failed;
			}
			if (failed == null) {
				return cause;
			}
			failed.addSuppressed(cause);
			return failed;
		}).thenCompose((first) -> releaseAsync(index - 1, holdAtLeast, first));
	}

	private static Throwable unwrap(Throwable failure) {
		return (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause() : failure;
	}

	/**
	 * Release every lease in reverse order. A loss is thrown after all are released, or added
	 * to the call's own failure.
	 */
	private void release(Duration holdAtLeast, Throwable failure) {
		LockLostException lost = null;
		for (int i = this.leases.size() - 1; i >= 0; i--) {
			try {
				this.leases.get(i).release(holdAtLeast);
			}
			catch (LockLostException ex) {
				if (lost == null) {
					lost = ex;
				}
				else {
					lost.addSuppressed(ex);
				}
			}
		}
		if (lost == null) {
			return;
		}
		if (failure != null) {
			failure.addSuppressed(lost);
			return;
		}
		throw lost;
	}

	/**
	 * Release every lease, some of which were lost before the method ran: the loss is expected
	 * and not reported again (each lost lease told its listeners when it was lost).
	 */
	private void releaseQuietly() {
		try {
			release(Duration.ZERO, null);
		}
		catch (LockLostException ex) {
			// Known: the reason to give the keys back.
		}
	}

	private void unbind() {
		this.leases.forEach(LockContext::unbind);
	}

}

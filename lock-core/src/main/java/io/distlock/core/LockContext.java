package io.distlock.core;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.Optional;

/**
 * The leases the current thread holds, innermost last, so that code running under a lock can
 * read its fencing token without passing the lease around.
 *
 * <pre class="code">
 * long token = LockContext.current().fencingToken();
 * </pre>
 *
 * Registries bind a lease when it is acquired on a thread and unbind it when it is released;
 * the {@code @DistributedLock} interceptor does the same around the annotated method.
 */
public final class LockContext {

	private static final ThreadLocal<Deque<LockLease>> leases = ThreadLocal.withInitial(ArrayDeque::new);

	private LockContext() {
	}

	/**
	 * Return the innermost lease the current thread holds.
	 * @return the lease
	 * @throws IllegalStateException if the current thread holds no lock
	 */
	public static LockLease current() {
		return find().orElseThrow(() -> new IllegalStateException(
				"The current thread holds no distributed lock; call LockContext.current() under a lock"));
	}

	/**
	 * Return the innermost lease the current thread holds, if any.
	 * @return the lease or empty
	 */
	public static Optional<LockLease> find() {
		Deque<LockLease> stack = leases.get();
		return Optional.ofNullable(stack.peekLast());
	}

	/**
	 * Return every lease bound to the current thread, outermost first.
	 * @return a snapshot, empty when the thread holds no lock
	 */
	public static java.util.List<LockLease> all() {
		return java.util.List.copyOf(leases.get());
	}

	/**
	 * Bind a lease to the current thread. For lock implementations and interceptors.
	 * @param lease the lease now held by the current thread
	 */
	public static void bind(LockLease lease) {
		leases.get().addLast(lease);
	}

	/**
	 * Unbind a lease from the current thread; does nothing if it is not bound here (for example
	 * when it is released by another thread). For lock implementations and interceptors.
	 * @param lease the lease being released
	 */
	public static void unbind(LockLease lease) {
		Deque<LockLease> stack = leases.get();
		for (Iterator<LockLease> it = stack.descendingIterator(); it.hasNext();) {
			if (it.next() == lease) {
				it.remove();
				break;
			}
		}
		if (stack.isEmpty()) {
			leases.remove();
		}
	}

}

package io.distlock.reactive;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;
import reactor.util.context.ContextView;

import io.distlock.core.LockLease;
import io.distlock.core.LockRegistry;
import io.distlock.core.LockRegistryIntrospection;

/**
 * The leases a reactive chain holds, read from the Reactor {@code Context}: the counterpart of
 * {@link io.distlock.core.LockContext} (which is bound to a thread) for code that runs inside
 * {@link ReactiveLocks} or a {@code @DistributedLock} method returning {@code Mono} or
 * {@code Flux}, so that it can pass the fencing token to its write.
 *
 * <pre class="code">
 * ReactiveLockContext.current()
 *     .flatMap((lease) -&gt; repository.reserve(productId, quantity, lease.fencingToken()));
 * </pre>
 */
public final class ReactiveLockContext {

	/** The context key; its value is an immutable {@code List<Held>}, outermost first. */
	private static final Class<ReactiveLockContext> KEY = ReactiveLockContext.class;

	private ReactiveLockContext() {
	}

	/**
	 * Return the innermost lease the subscribing chain holds.
	 * @return a {@code Mono} of the lease, failing with {@link IllegalStateException} when the
	 * chain holds no lock
	 */
	public static Mono<LockLease> current() {
		return Mono.deferContextual((context) -> {
			List<Held> held = held(context);
			if (held.isEmpty()) {
				return Mono.error(new IllegalStateException("The subscribing chain holds no distributed lock; call "
						+ "ReactiveLockContext.current() inside ReactiveLocks.withLock or a @DistributedLock method"));
			}
			return Mono.just(held.get(held.size() - 1).lease());
		});
	}

	/**
	 * Return the innermost lease the subscribing chain holds, if any.
	 * @return a {@code Mono} of the lease, empty when the chain holds no lock
	 */
	public static Mono<LockLease> find() {
		return Mono.deferContextual((context) -> {
			List<Held> held = held(context);
			return held.isEmpty() ? Mono.empty() : Mono.just(held.get(held.size() - 1).lease());
		});
	}

	/**
	 * Return every lease the subscribing chain holds, outermost first.
	 * @return a {@code Mono} of the leases, an empty list when the chain holds no lock
	 */
	public static Mono<List<LockLease>> all() {
		return Mono.deferContextual((context) -> Mono.just(held(context).stream().map(Held::lease).toList()));
	}

	/**
	 * Return the context with one more lease held, innermost: code subscribed with it sees the
	 * lease ({@link #current()}), and a nested hold of the same key from the same registry
	 * re-enters it. For integrations that hold a lock themselves and carry the Reactor
	 * {@code Context} elsewhere, such as the coroutine context of {@code distlock-kotlin}.
	 * @param context the context to extend
	 * @param registry the registry that granted the lease
	 * @param lease the lease now held
	 * @return the extended context
	 */
	public static Context with(Context context, LockRegistry registry, LockLease lease) {
		return with(context, registry, List.of(lease));
	}

	/**
	 * Return the valid lease of the given key, granted by the given registry, that the context
	 * holds: the lease a nested hold of that key re-enters, with no round trip.
	 * @param context the context to look in
	 * @param registry the registry a nested hold would lock with
	 * @param key the key a nested hold would lock
	 * @return the lease to re-enter, or {@code null} if the context holds none
	 */
	public static @Nullable LockLease reentrant(ContextView context, LockRegistry registry, String key) {
		List<Held> held = held(context);
		if (held.isEmpty()) {
			return null;
		}
		// A lease reports the key as locked, which may be a long key's digest form.
		String locked = (registry instanceof LockRegistryIntrospection introspection) ? introspection.lockKey(key)
				: key;
		for (int i = held.size() - 1; i >= 0; i--) {
			Held candidate = held.get(i);
			if (candidate.registry() == registry && candidate.lease().key().equals(locked)
					&& candidate.lease().isValid()) {
				return candidate.lease();
			}
		}
		return null;
	}

	@SuppressWarnings("unchecked")
	static List<Held> held(ContextView context) {
		return context.<List<Held>>getOrDefault(KEY, List.of());
	}

	static Context with(Context context, LockRegistry registry, List<LockLease> leases) {
		List<Held> held = new ArrayList<>(held(context));
		for (LockLease lease : leases) {
			held.add(new Held(registry, lease));
		}
		return context.put(KEY, List.copyOf(held));
	}

	/**
	 * A lease and the registry that granted it: a nested hold re-enters only a lease of the
	 * same registry.
	 */
	record Held(LockRegistry registry, LockLease lease) {
	}

}

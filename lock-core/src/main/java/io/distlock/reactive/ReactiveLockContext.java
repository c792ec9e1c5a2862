package io.distlock.reactive;

import java.util.ArrayList;
import java.util.List;

import reactor.core.publisher.Mono;
import reactor.util.context.Context;
import reactor.util.context.ContextView;

import io.distlock.core.LockLease;
import io.distlock.core.LockRegistry;

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

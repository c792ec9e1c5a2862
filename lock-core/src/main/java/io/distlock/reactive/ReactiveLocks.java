package io.distlock.reactive;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import io.distlock.core.LockKeyException;
import io.distlock.core.LockLease;
import io.distlock.core.LockRegistry;
import io.distlock.core.LockRegistryIntrospection;
import io.distlock.core.LockRequest;

/**
 * Reactor publishers that hold a distributed lock for the life of a subscription, on
 * {@link LockRegistry#acquireAsync}: no thread waits.
 * <p>
 * Each subscription takes its own hold when it subscribes, waiting at most the request's wait
 * time, then subscribes to the body with the lease, and releases the lock when the body
 * completes, errors or is cancelled ({@link LockLease#releaseAsync()}). Nothing happens until
 * a subscriber subscribes.
 * <ul>
 * <li>Not acquired within the wait time: the publisher fails with
 * {@link io.distlock.core.LockAcquisitionException} and the body is not called.</li>
 * <li>Lost while held (renewal refused, key gone, validity passed): the publisher fails with
 * {@link io.distlock.core.LockLostException} at once and the body's subscription is cancelled;
 * a loss found by the release itself fails the publisher instead of completing it.</li>
 * <li>Cancelled while waiting: the place in line is given up and no key is left behind.</li>
 * </ul>
 * The body runs with the leases in its Reactor {@code Context} (see
 * {@link ReactiveLockContext}). A hold nested in a chain that already holds the same key from
 * the same registry re-enters the outer lease, with no round trip. The body is never subscribed
 * on a thread of the Redis driver or of the registry: a lock granted there is handed to
 * Reactor's bounded-elastic scheduler (or the request's {@link LockRequest#executor executor}),
 * where a first blocking call (a lazy connection) harms nobody; a lock handed over by a release
 * of this process is taken on the releasing thread, once that release has returned.
 *
 * <pre class="code">
 * Mono&lt;Order&gt; order = ReactiveLocks.withLock(registry, LockRequest.of("stock:" + id).waitTime(Duration.ofSeconds(2)),
 *         (lease) -&gt; orders.reserve(id, quantity, lease.fencingToken()));
 * </pre>
 */
public final class ReactiveLocks {

	private ReactiveLocks() {
	}

	/**
	 * Hold the lock described by the request while the body's {@code Mono} runs; the value is
	 * emitted once the lock is released.
	 * @param <T> the value type
	 * @param registry the registry to lock with
	 * @param request what to lock, the wait time, the lease time and fairness
	 * @param body called with the lease once the lock is granted
	 * @return a {@code Mono} that locks on each subscription
	 */
	public static <T> Mono<T> withLock(LockRegistry registry, LockRequest request,
			Function<? super LockLease, ? extends Mono<T>> body) {
		return ReactiveHold.<T>hold(registry, List.of(request), Duration.ZERO, (leases) -> body.apply(leases.get(0)))
			.singleOrEmpty();
	}

	/**
	 * Hold the lock described by the request while the body's publisher runs; its elements
	 * pass through as they come, and it completes once the lock is released.
	 * @param <T> the element type
	 * @param registry the registry to lock with
	 * @param request what to lock, the wait time, the lease time and fairness
	 * @param body called with the lease once the lock is granted
	 * @return a {@code Flux} that locks on each subscription
	 */
	public static <T> Flux<T> withLockMany(LockRegistry registry, LockRequest request,
			Function<? super LockLease, ? extends Publisher<T>> body) {
		return ReactiveHold.<T>hold(registry, List.of(request), Duration.ZERO, (leases) -> body.apply(leases.get(0)));
	}

	/**
	 * Hold several locks, all or none, while the body's {@code Mono} runs. The keys are taken
	 * one after the other in their global (sorted) order, as
	 * {@link LockRegistry#obtainMulti(String...)} takes them, each within its request's wait time
	 * counted from the subscription; if one is not granted, those already taken are released.
	 * @param <T> the value type
	 * @param registry the registry to lock with
	 * @param requests the locks, with distinct keys, in any order
	 * @param body called with the leases, in key order, once every lock is granted
	 * @return a {@code Mono} that locks on each subscription
	 * @throws IllegalArgumentException if there are no requests or two name the same key
	 */
	public static <T> Mono<T> withLocks(LockRegistry registry, List<LockRequest> requests,
			Function<List<LockLease>, ? extends Mono<T>> body) {
		return ReactiveHold.<T>hold(registry, sorted(requests), Duration.ZERO, body).singleOrEmpty();
	}

	/**
	 * Hold several locks, all or none, while the body's publisher runs; see
	 * {@link #withLocks(LockRegistry, List, Function)} for the order and the wait.
	 * @param <T> the element type
	 * @param registry the registry to lock with
	 * @param requests the locks, with distinct keys, in any order
	 * @param body called with the leases, in key order, once every lock is granted
	 * @return a {@code Flux} that locks on each subscription
	 * @throws IllegalArgumentException if there are no requests or two name the same key
	 */
	public static <T> Flux<T> withLocksMany(LockRegistry registry, List<LockRequest> requests,
			Function<List<LockLease>, ? extends Publisher<T>> body) {
		return withLocksMany(registry, requests, Duration.ZERO, body);
	}

	/**
	 * Hold several locks, all or none, while the body's publisher runs, and each at least
	 * {@code holdAtLeast} after its grant: when the body ends sooner, each key stays in the store
	 * (no longer renewed) until then, as {@link LockLease#releaseAsync(Duration)} leaves it. For
	 * scheduled work that must not run twice when instances' clocks and schedules differ a
	 * little. The publisher still completes as soon as the releases are decided.
	 * @param <T> the element type
	 * @param registry the registry to lock with
	 * @param requests the locks, with distinct keys, in any order
	 * @param holdAtLeast the minimum time each lock stays taken after its grant; zero for none
	 * @param body called with the leases, in key order, once every lock is granted
	 * @return a {@code Flux} that locks on each subscription
	 * @throws IllegalArgumentException if there are no requests, two name the same key, or
	 * {@code holdAtLeast} is negative or longer than the registry's
	 * {@link LockRegistryIntrospection#maxLeaseTime() longest lease}
	 */
	public static <T> Flux<T> withLocksMany(LockRegistry registry, List<LockRequest> requests, Duration holdAtLeast,
			Function<List<LockLease>, ? extends Publisher<T>> body) {
		if (holdAtLeast.isNegative()) {
			throw new IllegalArgumentException("holdAtLeast must not be negative: " + holdAtLeast);
		}
		Duration maxLease = (registry instanceof LockRegistryIntrospection introspection)
				? introspection.maxLeaseTime().orElse(null) : null;
		if (maxLease != null && holdAtLeast.compareTo(maxLease) > 0) {
			// Refused now: at release time the locks would stay held.
			throw new IllegalArgumentException("holdAtLeast '" + holdAtLeast + "' is longer than the registry's "
					+ "maxLeaseTime '" + maxLease + "': a holder that dies would keep the lock that long");
		}
		List<LockRequest> sorted = sorted(requests);
		if (sorted.size() > 1 && registry instanceof LockRegistryIntrospection introspection) {
			try {
				// A key the registry refuses (too long, say) fails the publisher before any is taken.
				sorted.forEach((request) -> introspection.lockKey(request.key()));
			}
			catch (LockKeyException ex) {
				return Flux.error(ex);
			}
		}
		return ReactiveHold.hold(registry, sorted, holdAtLeast, body);
	}

	private static List<LockRequest> sorted(List<LockRequest> requests) {
		if (requests.isEmpty()) {
			throw new IllegalArgumentException("At least one lock request is required");
		}
		Set<String> keys = new HashSet<>();
		for (LockRequest request : requests) {
			if (!keys.add(request.key())) {
				throw new IllegalArgumentException("Key '" + request.key() + "' is requested twice");
			}
		}
		List<LockRequest> sorted = new ArrayList<>(requests);
		sorted.sort(Comparator.comparing(LockRequest::key));
		return List.copyOf(sorted);
	}

}

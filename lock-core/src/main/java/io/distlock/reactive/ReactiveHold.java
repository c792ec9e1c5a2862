package io.distlock.reactive;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;
import reactor.util.context.ContextView;

import org.springframework.util.ClassUtils;

import io.distlock.core.LockAcquisitionException;
import io.distlock.core.LockLease;
import io.distlock.core.LockLostException;
import io.distlock.core.LockRegistry;
import io.distlock.core.LockRequest;
import io.distlock.reactive.ReactiveLockContext.Held;

/**
 * One subscription's hold of one or more locks: each key is taken with
 * {@link LockRegistry#acquireAsync} in the order given (the caller sorts them), nested so that
 * the keys taken so far are released in reverse order when a later key is not granted, when the
 * body terminates, or when the subscriber cancels. Nothing here blocks. A lease granted on the
 * lock store's thread (the Redis driver's event loop) or the registry's arrives on Reactor's
 * bounded-elastic scheduler, unless the request names an executor, and the body is subscribed
 * there; a lease granted on any other thread (a release that handed the lock over) arrives
 * there.
 */
final class ReactiveHold<T> {

	private static final Log logger = LogFactory.getLog(ReactiveHold.class);

	/**
	 * Where a hold goes on when the lock is granted, lost or released on the store's or the
	 * registry's thread: Reactor's scheduler for work that may block, since a body's first use of
	 * a reactive Redis template may connect synchronously (Spring Data Redis does).
	 */
	private static final Executor BOUNDED_ELASTIC = (task) -> Schedulers.boundedElastic().schedule(task);

	private static final boolean observationPresent = ClassUtils.isPresent("io.micrometer.observation.Observation",
			ReactiveHold.class.getClassLoader());

	private final LockRegistry registry;

	private final List<LockRequest> requests;

	private final Function<List<LockLease>, ? extends Publisher<T>> body;

	private final Duration holdAtLeast;

	private final ContextView context;

	private final List<Held> outer;

	private final long start;

	private ReactiveHold(LockRegistry registry, List<LockRequest> requests, Duration holdAtLeast,
			Function<List<LockLease>, ? extends Publisher<T>> body, ContextView context) {
		this.registry = registry;
		this.requests = requests;
		this.holdAtLeast = holdAtLeast;
		this.body = body;
		this.context = context;
		this.outer = ReactiveLockContext.held(context);
		this.start = System.nanoTime();
	}

	/**
	 * A publisher that, on each subscription, takes every request's lock within its wait time
	 * (counted from the subscription), subscribes to the body with the leases and holds them
	 * until the body terminates or is cancelled, and at least {@code holdAtLeast} after each
	 * grant ({@link LockLease#releaseAsync(Duration)}).
	 */
	static <T> Flux<T> hold(LockRegistry registry, List<LockRequest> sortedRequests, Duration holdAtLeast,
			Function<List<LockLease>, ? extends Publisher<T>> body) {
		return Flux.deferContextual((context) -> new ReactiveHold<>(registry, sortedRequests, holdAtLeast, body,
				context).step(0, List.of()));
	}

	private Flux<T> step(int index, List<LockLease> taken) {
		if (index == this.requests.size()) {
			return run(taken);
		}
		LockRequest request = this.requests.get(index);
		LockLease reentered = ReactiveLockContext.reentrant(this.context, this.registry, request.key());
		if (reentered != null) {
			// The chain already holds this key (an outer hold of the same registry): no round
			// trip, and the outer hold releases it.
			return step(index + 1, append(taken, reentered));
		}
		// Set once usingWhen has the lease (and releases it); until then a cancelled acquisition
		// releases its grant itself.
		AtomicBoolean claimed = new AtomicBoolean();
		return Flux.usingWhen(acquire(request, claimed), (lease) -> {
			claimed.set(true);
			return step(index + 1, append(taken, lease));
		}, this::release, this::releaseAfterError, this::releaseAfterCancel)
			.onErrorMap(ReactiveHold::isLossFoundByRelease, Throwable::getCause);
	}

	/**
	 * Whether the failure is Reactor's wrapper around a {@link LockLostException} from the
	 * release after the body completed: the holder is told the loss itself, as Spring's
	 * {@code TransactionalOperator} unwraps a failed commit.
	 */
	private static boolean isLossFoundByRelease(Throwable failure) {
		return failure.getCause() instanceof LockLostException && failure.getMessage() != null
				&& failure.getMessage().startsWith("Async resource cleanup failed");
	}

	private Flux<T> run(List<LockLease> leases) {
		Publisher<T> publisher;
		try {
			publisher = this.body.apply(leases);
		}
		catch (Throwable ex) {
			return Flux.error(ex);
		}
		if (publisher == null) {
			return Flux.error(new NullPointerException("The locked body returned null instead of a publisher"));
		}
		// One signal for every lease this hold took itself: the first loss cancels the body and
		// then fails the chain, so that whoever sees the failure sees the body stopped. An outer
		// hold watches the leases it re-enters.
		AtomicReference<LockLostException> lostWhileRunning = new AtomicReference<>();
		Sinks.Empty<Void> lost = Sinks.empty();
		for (LockLease lease : leases) {
			if (reenteredLease(lease)) {
				continue;
			}
			lease.onLost((ex) -> {
				lostWhileRunning.compareAndSet(null, ex);
				lost.tryEmitEmpty();
			});
		}
		return Flux.from(publisher)
			.contextWrite((context) -> ReactiveLockContext.with(context, this.registry, leases))
			.takeUntilOther(lost.asMono())
			.concatWith(Mono.defer(() -> {
				// A loss before the body completed also fails it: its result cannot be trusted.
				LockLostException ex = lostWhileRunning.get();
				return (ex != null) ? Mono.error(ex) : Mono.empty();
			}));
	}

	private Mono<LockLease> acquire(LockRequest request, AtomicBoolean claimed) {
		Duration remaining = Duration
			.ofNanos(Math.max(0, this.start + request.waitTime().toNanos() - System.nanoTime()));
		LockRequest remainingRequest = request.waitTime(remaining);
		return Mono.defer(() -> {
			// Asked for within the scope of the observation the chain carries, if any, so that
			// the acquisition and the hold are its children.
			CompletableFuture<LockLease> acquisition = observationPresent
					? ObservationScope.callWithin(this.context, () -> acquireAsync(remainingRequest))
					: acquireAsync(remainingRequest);
			// Not suppressing the cancellation: cancelling the future gives up the place in line,
			// and the registry releases a grant that races it.
			return Mono.fromFuture(acquisition, false)
				// A grant that completes the future as the subscriber cancels is discarded by
				// fromFuture instead of reaching usingWhen, which would release it.
				.doOnDiscard(LockLease.class, (lease) -> releaseUnclaimed(lease, claimed))
				// A cancellation can also come before fromFuture watches the future at all (while
				// subscribing, when the registry granted on this thread), or meet a grant that
				// neither the registry nor fromFuture sees: whatever the future holds once the
				// cancellation is through, and usingWhen never got, is released here. Without it
				// nobody would, and the watchdog would renew the lock for good.
				.doFinally((signal) -> {
					if (signal == SignalType.CANCEL) {
						acquisition.whenComplete((lease, failure) -> {
							if (lease != null) {
								releaseUnclaimed(lease, claimed);
							}
						});
					}
				});
		})
			.onErrorMap((ex) -> ex instanceof LockAcquisitionException acquisition && acquisition.getCause() == null,
					// Say what was asked for: the whole wait, not what was left for a later key.
					(ex) -> new LockAcquisitionException(request.key(), "Could not acquire lock '" + request.name()
							+ "' for key '" + request.key() + "' within " + request.waitTime().toMillis() + "ms",
							null));
	}

	private static void releaseUnclaimed(LockLease lease, AtomicBoolean claimed) {
		if (!claimed.compareAndSet(false, true)) {
			return;
		}
		// The body never ran: no minimum hold to keep.
		lease.releaseAsync().whenComplete((released, failure) -> {
			// Nobody is subscribed to hear it: a loss was already told through onLost and the
			// listeners, and a store failure leaves the key to expire with its lease.
			if (failure != null && logger.isDebugEnabled()) {
				logger.debug("Could not release lock for key '" + lease.key() + "' granted to a cancelled hold",
						failure);
			}
		});
	}

	private CompletableFuture<LockLease> acquireAsync(LockRequest request) {
		LockRequest placed = (request.executor() != null) ? request : request.executor(BOUNDED_ELASTIC);
		return this.registry.acquireAsync(placed).toCompletableFuture();
	}

	/**
	 * Release after the body completed: a loss detected now fails the chain, since what it did
	 * may have overlapped another holder.
	 */
	private Mono<Void> release(LockLease lease) {
		return Mono.fromFuture(() -> lease.releaseAsync(this.holdAtLeast), true);
	}

	private Mono<Void> releaseAfterError(LockLease lease, Throwable error) {
		return release(lease).onErrorResume(LockLostException.class, (lost) -> {
			if (!(error instanceof LockLostException)) {
				error.addSuppressed(lost);
			}
			return Mono.empty();
		});
	}

	private Mono<Void> releaseAfterCancel(LockLease lease) {
		return release(lease).onErrorResume(LockLostException.class, (lost) -> {
			// Nobody is subscribed to hear it; the registry has already logged the loss, called
			// onLost and told the listeners.
			if (logger.isDebugEnabled()) {
				logger.debug("Lock for key '" + lease.key() + "' was lost before its cancelled holder released it");
			}
			return Mono.empty();
		});
	}

	private boolean reenteredLease(LockLease lease) {
		for (Held held : this.outer) {
			if (held.lease() == lease) {
				return true;
			}
		}
		return false;
	}

	private static List<LockLease> append(List<LockLease> taken, LockLease lease) {
		if (taken.isEmpty()) {
			// The first key, and for most holds the only one: no list to copy.
			return List.of(lease);
		}
		List<LockLease> leases = new ArrayList<>(taken.size() + 1);
		leases.addAll(taken);
		leases.add(lease);
		return List.copyOf(leases);
	}

}

package io.distlock.interceptor;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import org.aopalliance.intercept.MethodInvocation;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;

import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;

import io.distlock.core.LockAcquisitionException;
import io.distlock.core.LockRegistry;
import io.distlock.core.LockRequest;
import io.distlock.interceptor.LockDefinition.ResultKind;
import io.distlock.reactive.ReactiveLocks;

/**
 * One call of an annotated method that returns a {@code Mono}, {@code Flux} or
 * {@code Publisher}: the publisher handed back in its place takes every key on each
 * subscription (all or none, in their global order, without blocking), then calls the method
 * and holds the locks until its publisher terminates or is cancelled. Loaded only for such
 * methods, so that Reactor stays optional.
 * <p>
 * Kotlin goes the same way, as Spring's {@code TransactionInterceptor} takes it: for a
 * {@code suspend} function Spring's AOP proxy hands the advice the call as a publisher
 * ({@code CoroutinesUtils.invokeSuspendingFunction}, in the caller's coroutine context) and
 * awaits the {@code Mono} returned here in the calling coroutine, so that cancelling the
 * coroutine cancels the subscription and releases the lock. A {@code Flow} is adapted to a
 * {@code Flux} and back with Spring's {@link ReactiveAdapterRegistry}, which carries the Reactor
 * {@code Context} (and so the lease) into the flow's coroutine context.
 */
final class ReactiveLockInvocation {

	private ReactiveLockInvocation() {
	}

	/**
	 * Return the publisher that stands for the call.
	 * @param sortedKeys the evaluated keys, or {@code null} if evaluating them failed
	 * @param keyFailure why the keys could not be evaluated, or {@code null}
	 * @param onFailure what the annotation says to do when the locks are not acquired: a
	 * publisher to subscribe to instead, {@code null} for nothing, or a thrown exception
	 */
	static Object invoke(LockRegistry registry, LockDefinition definition, List<String> sortedKeys,
			RuntimeException keyFailure, Duration waitTime, MethodInvocation invocation, FailureHandler onFailure) {
		Flux<Object> locked = (keyFailure != null) ? Flux.error(keyFailure)
				: Flux.defer(() -> subscribe(registry, definition, sortedKeys, waitTime, invocation, onFailure));
		if (definition.resultKind().isSingle()) {
			return locked.singleOrEmpty();
		}
		if (definition.resultKind() == ResultKind.FLOW) {
			return adapter(definition.method().getReturnType()).fromPublisher(locked);
		}
		return locked;
	}

	private static Flux<Object> subscribe(LockRegistry registry, LockDefinition definition, List<String> sortedKeys,
			Duration waitTime, MethodInvocation invocation, FailureHandler onFailure) {
		List<LockRequest> requests = new ArrayList<>(sortedKeys.size());
		for (String key : sortedKeys) {
			requests.add(LockRequest.of(key)
				.name(definition.name())
				.waitTime(waitTime)
				.leaseTime(definition.leaseTime())
				.fair(definition.fair()));
		}
		// Per subscription: an acquisition failure from the method's own publisher (a lock it
		// takes itself) is its failure, not this annotation's, and never falls back.
		AtomicBoolean called = new AtomicBoolean();
		return ReactiveLocks.withLocksMany(registry, requests, definition.holdAtLeast(), (leases) -> {
			called.set(true);
			return proceed(invocation);
		}).onErrorResume((ex) -> ex instanceof LockAcquisitionException && !called.get(),
				(ex) -> fallBack(onFailure, (LockAcquisitionException) ex));
	}

	/**
	 * Call the method for one subscription. Each subscription proceeds on its own clone of the
	 * invocation, so that a second subscription runs the advice chain inside this one (a
	 * transaction interceptor, say) again, rather than the bare method.
	 */
	private static Publisher<Object> proceed(MethodInvocation invocation) {
		MethodInvocation call = (invocation instanceof ProxyMethodInvocation proxied) ? proxied.invocableClone()
				: invocation;
		Object result;
		try {
			result = call.proceed();
		}
		catch (Throwable ex) {
			return Flux.error(ex);
		}
		if (result == null) {
			return Flux.error(new IllegalStateException("Method '" + invocation.getMethod().getName()
					+ "' returned null instead of a publisher; return Mono.empty(), Flux.empty() or emptyFlow()"));
		}
		return publisher(result);
	}

	/**
	 * The method's result as a publisher: a {@code Flow} (or what a fallback returns) is adapted;
	 * a suspend function's call already is one.
	 */
	@SuppressWarnings("unchecked")
	private static Publisher<Object> publisher(Object result) {
		if (result instanceof Publisher<?> publisher) {
			return (Publisher<Object>) publisher;
		}
		return (Publisher<Object>) adapter(result.getClass()).toPublisher(result);
	}

	private static ReactiveAdapter adapter(Class<?> type) {
		ReactiveAdapter adapter = ReactiveAdapterRegistry.getSharedInstance().getAdapter(type);
		if (adapter == null) {
			throw new IllegalStateException("No reactive adapter for '" + type.getName() + "': "
					+ "org.jetbrains.kotlinx:kotlinx-coroutines-reactor must be on the classpath to adapt a Flow");
		}
		return adapter;
	}

	private static Publisher<Object> fallBack(FailureHandler onFailure, LockAcquisitionException ex) {
		Object result;
		try {
			result = onFailure.handle(ex);
		}
		catch (Throwable failure) {
			return Flux.error(failure);
		}
		return (result != null) ? publisher(result) : Flux.empty();
	}

	/**
	 * What the interceptor does when the locks are not acquired.
	 */
	@FunctionalInterface
	interface FailureHandler {

		/**
		 * Handle a failed acquisition.
		 * @return the publisher to subscribe to instead, or {@code null} to complete empty
		 * @throws Throwable the failure to signal
		 */
		Object handle(LockAcquisitionException ex) throws Throwable;

	}

}

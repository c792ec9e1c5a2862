package io.distlock.engine;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A future handed to user code whose dependent stages never run on the store's or the engine's
 * threads. The engine completes it wherever the outcome is known, the driver's event loop
 * included: a caller blocked in {@code get} or {@code join} is woken there as by any future, at
 * no extra cost. Every dependent stage, on the other hand, runs through the placing executor
 * (see {@link Continuations#placing}): at once on any other thread, and on the hold's executor
 * when the completing thread is the store's or the engine's. Stages derived from it place their
 * own dependents the same way.
 * <p>
 * The non-asynchronous methods are the ones overridden: the {@code *Async} ones already run
 * where they are told to.
 */
final class PlacedFuture<T> extends CompletableFuture<T> {

	private final Executor placing;

	PlacedFuture(Executor placing) {
		this.placing = placing;
	}

	/**
	 * Register a dependent of the engine's own, which runs where the future completes.
	 */
	void whenCompleteHere(BiConsumer<? super T, ? super Throwable> action) {
		super.whenComplete(action);
	}

	/**
	 * Complete as the given future of the engine's does, where it completes.
	 */
	void completeFrom(CompletableFuture<? extends T> source) {
		source.whenComplete((value, failure) -> {
			if (failure != null) {
				completeExceptionally(StoreCalls.unwrap(failure));
			}
			else {
				complete(value);
			}
		});
	}

	@Override
	public <U> CompletableFuture<U> newIncompleteFuture() {
		return new PlacedFuture<>(this.placing);
	}

	@Override
	public <U> CompletableFuture<U> thenApply(Function<? super T, ? extends U> fn) {
		return thenApplyAsync(fn, this.placing);
	}

	@Override
	public CompletableFuture<Void> thenAccept(Consumer<? super T> action) {
		return thenAcceptAsync(action, this.placing);
	}

	@Override
	public CompletableFuture<Void> thenRun(Runnable action) {
		return thenRunAsync(action, this.placing);
	}

	@Override
	public <U, V> CompletableFuture<V> thenCombine(CompletionStage<? extends U> other,
			BiFunction<? super T, ? super U, ? extends V> fn) {
		return thenCombineAsync(other, fn, this.placing);
	}

	@Override
	public <U> CompletableFuture<Void> thenAcceptBoth(CompletionStage<? extends U> other,
			BiConsumer<? super T, ? super U> action) {
		return thenAcceptBothAsync(other, action, this.placing);
	}

	@Override
	public CompletableFuture<Void> runAfterBoth(CompletionStage<?> other, Runnable action) {
		return runAfterBothAsync(other, action, this.placing);
	}

	@Override
	public <U> CompletableFuture<U> applyToEither(CompletionStage<? extends T> other, Function<? super T, U> fn) {
		return applyToEitherAsync(other, fn, this.placing);
	}

	@Override
	public CompletableFuture<Void> acceptEither(CompletionStage<? extends T> other, Consumer<? super T> action) {
		return acceptEitherAsync(other, action, this.placing);
	}

	@Override
	public CompletableFuture<Void> runAfterEither(CompletionStage<?> other, Runnable action) {
		return runAfterEitherAsync(other, action, this.placing);
	}

	@Override
	public <U> CompletableFuture<U> thenCompose(Function<? super T, ? extends CompletionStage<U>> fn) {
		return thenComposeAsync(fn, this.placing);
	}

	@Override
	public <U> CompletableFuture<U> handle(BiFunction<? super T, Throwable, ? extends U> fn) {
		return handleAsync(fn, this.placing);
	}

	@Override
	public CompletableFuture<T> whenComplete(BiConsumer<? super T, ? super Throwable> action) {
		return whenCompleteAsync(action, this.placing);
	}

	@Override
	public CompletableFuture<T> exceptionally(Function<Throwable, ? extends T> fn) {
		return exceptionallyAsync(fn, this.placing);
	}

	@Override
	public CompletableFuture<T> exceptionallyCompose(Function<Throwable, ? extends CompletionStage<T>> fn) {
		return exceptionallyComposeAsync(fn, this.placing);
	}

}

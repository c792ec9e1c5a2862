package io.distlock.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiFunction;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Runs a startup probe against each Redis that holds the locks (the application's, or every
 * Redlock node), each on a thread of its own, and waits for them together for at most
 * {@link #TIMEOUT}: connecting to a store that is down blocks, and startup must not wait for
 * the driver's timeouts one store after another.
 */
final class StoreProbes {

	/** How long the probes of all stores may take together. */
	static final Duration TIMEOUT = Duration.ofSeconds(3);

	private StoreProbes() {
	}

	/**
	 * Start the probe on every store and wait for the answers.
	 * @param stores each store's connection factory, by its name in messages
	 * @param probe what to ask one store, given its name and connection factory
	 * @param <T> the probe's answer
	 * @return each store's answer by name, in the same order; not done when the store did not
	 * answer within {@link #TIMEOUT}
	 */
	static <T> Map<String, CompletableFuture<T>> run(Map<String, RedisConnectionFactory> stores,
			BiFunction<String, RedisConnectionFactory, T> probe) {
		Map<String, CompletableFuture<T>> answers = new LinkedHashMap<>();
		stores.forEach((store, connectionFactory) -> {
			CompletableFuture<T> answer = new CompletableFuture<>();
			Thread thread = new Thread(() -> {
				try {
					answer.complete(probe.apply(store, connectionFactory));
				}
				catch (RuntimeException ex) {
					answer.completeExceptionally(ex);
				}
			}, "distlock-store-check");
			thread.setDaemon(true);
			thread.start();
			answers.put(store, answer);
		});
		try {
			CompletableFuture.allOf(answers.values().toArray(CompletableFuture[]::new))
				.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | TimeoutException ex) {
			// Each store's own answer is looked at by the caller.
		}
		return answers;
	}

	/**
	 * Return why a store gave no answer: its failure, or that it did not answer in time.
	 */
	static String noAnswer(CompletableFuture<?> answer) {
		if (!answer.isDone()) {
			return "no answer within " + TIMEOUT.toMillis() + "ms";
		}
		try {
			answer.join();
			return "";
		}
		catch (RuntimeException ex) {
			return describe((ex.getCause() != null) ? ex.getCause() : ex);
		}
	}

	/**
	 * Describe why a store failed: the failure's message followed by those of its causes that
	 * add to it, so that a message such as {@code Unable to connect to Redis} is followed by the
	 * driver's {@code Unable to connect to localhost/<unresolved>:6379}, which names the address
	 * that was tried.
	 * @param failure what the store or its driver threw
	 * @return the messages, outermost first, separated by {@code ": "}
	 */
	static String describe(Throwable failure) {
		StringBuilder description = new StringBuilder(
				(failure.getMessage() != null) ? failure.getMessage() : failure.getClass().getName());
		String previous = description.toString();
		Throwable cause = failure.getCause();
		while (cause != null && cause != cause.getCause()) {
			String message = cause.getMessage();
			if (message != null && !previous.contains(message)) {
				description.append(": ").append(message);
				previous = message;
			}
			cause = cause.getCause();
		}
		return description.toString();
	}

}

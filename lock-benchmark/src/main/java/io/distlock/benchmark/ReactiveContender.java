package io.distlock.benchmark;

import reactor.core.publisher.Mono;

/**
 * One reactive lock implementation under test: a {@code Mono} that locks a key on each
 * subscription, runs the section's {@code Mono} while holding it, and unlocks.
 */
interface ReactiveContender extends AutoCloseable {

	String name();

	/**
	 * Return a {@code Mono} that locks the key, subscribes to the section and unlocks when it ends.
	 * @param key the key to lock
	 * @param subscriber which subscriber locks, distinct for each concurrent subscriber (the owner
	 * id of APIs that need one)
	 * @param section the non-blocking section
	 */
	Mono<Void> locked(String key, int subscriber, Mono<Void> section);

	@Override
	void close();

}

package io.distlock.reactive;

import java.time.Duration;

import reactor.core.publisher.Mono;

/**
 * The lost-update detector for reactive code: an increment that reads, waits 1 ms without
 * blocking (on Reactor's timer) and writes back. Two increments that overlap lose an update, so
 * the final value falls short of the number of increments exactly when exclusion failed.
 */
final class AsyncLostUpdateCounter {

	private volatile int value;

	Mono<Integer> increment() {
		return Mono.defer(() -> {
			int read = this.value;
			return Mono.delay(Duration.ofMillis(1)).map((tick) -> {
				this.value = read + 1;
				return read;
			});
		});
	}

	int value() {
		return this.value;
	}

}

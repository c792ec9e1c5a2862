package io.distlock.autoconfigure.reactive;

import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisReactiveAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

import io.distlock.annotation.DistributedLock;
import io.distlock.autoconfigure.DistlockAutoConfiguration;

/**
 * A reactive application as a new user writes one: Boot's Redis auto-configuration (its
 * Lettuce connection factory and {@link ReactiveStringRedisTemplate}), distlock's, and one
 * annotated method whose {@code Mono} reads and writes a counter through that template.
 */
@Configuration(proxyBeanMethods = false)
@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, DataRedisReactiveAutoConfiguration.class,
		AopAutoConfiguration.class, DistlockAutoConfiguration.class })
class ReactiveCounterApplication {

	@Bean
	Counter counter(ReactiveStringRedisTemplate template) {
		return new Counter(template);
	}

	/**
	 * A counter incremented by a read and a write under the lock, never atomically: two
	 * holders at once would lose an update.
	 */
	static class Counter {

		private final ReactiveStringRedisTemplate template;

		Counter(ReactiveStringRedisTemplate template) {
			this.template = template;
		}

		@DistributedLock(key = "'counter:' + #p0", waitTime = "120s")
		public Mono<Long> increment(String key) {
			return this.template.opsForValue()
				.get(key)
				.map(Long::parseLong)
				.defaultIfEmpty(0L)
				.flatMap((value) -> this.template.opsForValue().set(key, Long.toString(value + 1)).thenReturn(value + 1));
		}

	}

}

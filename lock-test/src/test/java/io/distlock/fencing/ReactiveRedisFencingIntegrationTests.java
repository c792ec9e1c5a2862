package io.distlock.fencing;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

import io.distlock.core.LockRequest;
import io.distlock.core.StaleFencingTokenException;
import io.distlock.fencing.StaleHolders.Holds;
import io.distlock.reactive.ReactiveLocks;
import io.distlock.test.redis.RedisServerExtension;
import io.distlock.test.registry.LockRegistries;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fenced Redis reads and writes for reactive holds, on a real Redis: the token comes from the
 * chain's {@code ReactiveLockContext}; a holder whose fixed lease ran out while it was paused is
 * refused once the next holder has read the key, and the plain reactive template lets its write
 * land (the negative control).
 */
@Timeout(60)
class ReactiveRedisFencingIntegrationTests {

	private static final Duration VERIFY = Duration.ofSeconds(10);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockRegistries registries = LockRegistries.on(redis);

	private StaleHolders holders;

	private ReactiveStringRedisTemplate template;

	private ReactiveRedisFencing fencing;

	private String key;

	@BeforeEach
	void start() {
		this.holders = new StaleHolders(this.registries, "stock");
		this.template = new ReactiveStringRedisTemplate(redis.server().connectionFactory());
		this.fencing = new ReactiveRedisFencing(this.template);
		this.key = this.holders.key();
		redis.server().template().opsForValue().set(this.key, "10");
	}

	@Test
	void aReactiveHoldReadsAndWritesWithTheTokenOfItsContext() {
		Mono<String> reserve = ReactiveLocks.withLock(this.holders.second(),
				LockRequest.of(this.key).waitTime(Duration.ofSeconds(2)),
				(lease) -> this.fencing.get(this.key)
					.map((stock) -> Long.toString(Long.parseLong(stock) - 1))
					.flatMap((left) -> this.fencing.set(this.key, left).thenReturn(left)));
		StepVerifier.create(reserve).expectNext("9").verifyComplete();
		StepVerifier.create(reserve).expectNext("8").verifyComplete();
		StepVerifier.create(this.fencing.get(this.key))
			.expectError(IllegalStateException.class)
			.verify(VERIFY);
	}

	@Test
	void aStaleHoldersWriteIsRefusedOnceANewerHolderReadTheKey() {
		Holds stale = this.holders.staleAndNewer();
		StepVerifier.create(this.fencing.get(this.key, stale.newer())).expectNext("10").verifyComplete();
		StepVerifier.create(this.fencing.set(this.key, "9", stale.older()))
			.expectError(StaleFencingTokenException.class)
			.verify(VERIFY);
		StepVerifier.create(this.fencing.putAll(this.key + ":hash", Map.of("count", "1"), stale.older()))
			.verifyComplete();
		StepVerifier.create(this.fencing.putAll(this.key + ":hash", Map.of("count", "2"), stale.newer()))
			.verifyComplete();
		StepVerifier.create(this.fencing.putAll(this.key + ":hash", Map.of("count", "3"), stale.older()))
			.expectError(StaleFencingTokenException.class)
			.verify(VERIFY);
		StepVerifier.create(this.fencing.set(this.key, "8", stale.newer())).verifyComplete();
		assertThat(redis.server().template().opsForValue().get(this.key)).isEqualTo("8");
		assertThat(redis.server().template().opsForHash().get(this.key + ":hash", "count")).isEqualTo("2");
	}

	@Test
	void negativeControlThePlainReactiveTemplateLetsTheStaleWriteLand() {
		this.holders.staleAndNewer();
		StepVerifier.create(this.template.opsForValue().set(this.key, "8")).expectNext(true).verifyComplete();
		StepVerifier.create(this.template.opsForValue().set(this.key, "9")).expectNext(true).verifyComplete();
		assertThat(redis.server().template().opsForValue().get(this.key)).isEqualTo("9");
	}

}

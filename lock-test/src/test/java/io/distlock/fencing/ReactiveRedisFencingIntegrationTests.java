package io.distlock.fencing;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

import io.distlock.core.LockLease;
import io.distlock.core.LockRequest;
import io.distlock.core.StaleFencingTokenException;
import io.distlock.reactive.ReactiveLocks;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.test.redis.RedisServerExtension;
import io.distlock.test.registry.LockRegistries;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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

	private RedisLockRegistry first;

	private RedisLockRegistry second;

	private ReactiveStringRedisTemplate template;

	private ReactiveRedisFencing fencing;

	private String key;

	@BeforeEach
	void start() {
		this.first = this.registries.redis();
		this.second = this.registries.redis();
		this.template = new ReactiveStringRedisTemplate(redis.server().connectionFactory());
		this.fencing = new ReactiveRedisFencing(this.template);
		this.key = "stock:" + UUID.randomUUID();
		redis.server().template().opsForValue().set(this.key, "10");
	}

	@Test
	void aReactiveHoldReadsAndWritesWithTheTokenOfItsContext() {
		Mono<String> reserve = ReactiveLocks.withLock(this.second,
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
		LockLease[] holders = staleHolderAndNewHolder();
		StepVerifier.create(this.fencing.get(this.key, holders[1])).expectNext("10").verifyComplete();
		StepVerifier.create(this.fencing.set(this.key, "9", holders[0]))
			.expectError(StaleFencingTokenException.class)
			.verify(VERIFY);
		StepVerifier.create(this.fencing.putAll(this.key + ":hash", Map.of("count", "1"), holders[0]))
			.verifyComplete();
		StepVerifier.create(this.fencing.putAll(this.key + ":hash", Map.of("count", "2"), holders[1]))
			.verifyComplete();
		StepVerifier.create(this.fencing.putAll(this.key + ":hash", Map.of("count", "3"), holders[0]))
			.expectError(StaleFencingTokenException.class)
			.verify(VERIFY);
		StepVerifier.create(this.fencing.set(this.key, "8", holders[1])).verifyComplete();
		assertThat(redis.server().template().opsForValue().get(this.key)).isEqualTo("8");
		assertThat(redis.server().template().opsForHash().get(this.key + ":hash", "count")).isEqualTo("2");
	}

	@Test
	void negativeControlThePlainReactiveTemplateLetsTheStaleWriteLand() {
		staleHolderAndNewHolder();
		StepVerifier.create(this.template.opsForValue().set(this.key, "8")).expectNext(true).verifyComplete();
		StepVerifier.create(this.template.opsForValue().set(this.key, "9")).expectNext(true).verifyComplete();
		assertThat(redis.server().template().opsForValue().get(this.key)).isEqualTo("9");
	}

	private LockLease[] staleHolderAndNewHolder() {
		LockLease older = this.first.acquire(
				LockRequest.of(this.key).waitTime(Duration.ofSeconds(2)).leaseTime(Duration.ofMillis(300)));
		await().atMost(Duration.ofSeconds(10)).until(() -> !older.isValid());
		LockLease newer = this.second.acquire(this.key, Duration.ofSeconds(5));
		return new LockLease[] { older, newer };
	}

}

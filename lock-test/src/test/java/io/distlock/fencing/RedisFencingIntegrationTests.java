package io.distlock.fencing;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.data.redis.core.StringRedisTemplate;

import io.distlock.core.LockLease;
import io.distlock.core.LockRequest;
import io.distlock.core.StaleFencingTokenException;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.test.redis.RedisServerExtension;
import io.distlock.test.registry.LockRegistries;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Fenced writes of Redis data on a real Redis: a holder whose fixed lease ran out while it was
 * paused writes after the next holder did, and its write is refused and leaves the data as the
 * next holder wrote it; the same writes through the plain template let the stale one land (the
 * negative control).
 */
@Timeout(60)
class RedisFencingIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockRegistries registries = LockRegistries.on(redis);

	private RedisLockRegistry first;

	private RedisLockRegistry second;

	private StringRedisTemplate template;

	private RedisFencing fencing;

	private String key;

	@BeforeEach
	void start() {
		this.first = this.registries.redis();
		this.second = this.registries.redis();
		this.template = redis.server().template();
		this.fencing = new RedisFencing(this.template);
		this.key = "cart:" + UUID.randomUUID();
	}

	@Test
	void aStaleHoldersValueAndHashWritesAreRefused() {
		LockLease[] holders = staleHolderAndNewHolder();
		this.fencing.set(this.key, "newer", holders[1]);
		assertThatExceptionOfType(StaleFencingTokenException.class)
			.isThrownBy(() -> this.fencing.set(this.key, "stale", holders[0]))
			.satisfies((ex) -> assertThat(ex.getCurrentToken()).isEqualTo(holders[1].fencingToken()));
		assertThat(this.template.opsForValue().get(this.key)).isEqualTo("newer");
		String hash = this.key + ":hash";
		this.fencing.putAll(hash, Map.of("count", "1"), holders[1]);
		assertThatExceptionOfType(StaleFencingTokenException.class)
			.isThrownBy(() -> this.fencing.putAll(hash, Map.of("count", "999"), holders[0]));
		assertThat(this.template.opsForHash().get(hash, "count")).isEqualTo("1");
	}

	@Test
	void aReadUnderANewerLockShutsOutTheOlderHoldersWrite() {
		this.template.opsForValue().set(this.key, "10");
		LockLease[] holders = staleHolderAndNewHolder();
		// The stale holder read before its lease ran out; the newer one reads now.
		assertThat(this.fencing.get(this.key, holders[1])).isEqualTo("10");
		assertThatExceptionOfType(StaleFencingTokenException.class)
			.isThrownBy(() -> this.fencing.set(this.key, "9", holders[0]));
		assertThatExceptionOfType(StaleFencingTokenException.class)
			.isThrownBy(() -> this.fencing.get(this.key, holders[0]));
		this.fencing.set(this.key, "8", holders[1]);
		assertThat(this.fencing.get(this.key + ":none", holders[1])).isNull();
		assertThat(this.template.opsForValue().get(this.key)).isEqualTo("8");
	}

	@Test
	void negativeControlThePlainTemplateLetsTheStaleWriteLand() {
		staleHolderAndNewHolder();
		this.template.opsForValue().set(this.key, "newer");
		this.template.opsForValue().set(this.key, "stale");
		assertThat(this.template.opsForValue().get(this.key)).isEqualTo("stale");
	}

	@Test
	void writesOfTheLockTheThreadHoldsPassAgainAndAgain() {
		this.second.executeLocked(LockRequest.of(this.key).waitTime(Duration.ofSeconds(2)), () -> {
			this.fencing.set(this.key, "one");
			this.fencing.set(this.key, "two");
			return null;
		});
		assertThat(this.template.opsForValue().get(this.key)).isEqualTo("two");
	}

	@Test
	void theFenceKeySharesTheDataKeysClusterSlot() {
		assertThat(RedisFencing.fenceKey("stock:42")).isEqualTo("{stock:42}:distlock-fence");
		assertThat(RedisFencing.fenceKey("{stock}:42")).isEqualTo("{stock}:42:distlock-fence");
		assertThat(RedisFencing.fenceKey("a{b")).isEqualTo("{a{b}:distlock-fence");
		for (String key : new String[] { "stock:42", "{stock}:42", "a{b", "x{y}z{w}" }) {
			assertThat(slot(RedisFencing.fenceKey(key))).as(key).isEqualTo(slot(key));
		}
		assertThatIllegalArgumentException().isThrownBy(() -> RedisFencing.fenceKey("{}stock"))
			.withMessageContaining("hash tag");
	}

	private static int slot(String key) {
		return ClusterSlotHashUtil.calculateSlot(key.getBytes(StandardCharsets.UTF_8));
	}

	private LockLease[] staleHolderAndNewHolder() {
		LockLease older = this.first.acquire(
				LockRequest.of(this.key).waitTime(Duration.ofSeconds(2)).leaseTime(Duration.ofMillis(300)));
		await().atMost(Duration.ofSeconds(10)).until(() -> !older.isValid());
		LockLease newer = this.second.acquire(this.key, Duration.ofSeconds(5));
		return new LockLease[] { older, newer };
	}

}

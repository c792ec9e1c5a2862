package io.distlock.fencing;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.data.redis.core.StringRedisTemplate;

import io.distlock.core.LockRequest;
import io.distlock.core.StaleFencingTokenException;
import io.distlock.fencing.StaleHolders.Holds;
import io.distlock.test.redis.RedisServerExtension;
import io.distlock.test.registry.LockRegistries;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

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

	private StaleHolders holders;

	private StringRedisTemplate template;

	private RedisFencing fencing;

	private String key;

	@BeforeEach
	void start() {
		this.holders = new StaleHolders(this.registries, "cart");
		this.template = redis.server().template();
		this.fencing = new RedisFencing(this.template);
		this.key = this.holders.key();
	}

	@Test
	void aStaleHoldersValueAndHashWritesAreRefused() {
		Holds stale = this.holders.staleAndNewer();
		this.fencing.set(this.key, "newer", stale.newer());
		assertThatExceptionOfType(StaleFencingTokenException.class)
			.isThrownBy(() -> this.fencing.set(this.key, "stale", stale.older()))
			.satisfies((ex) -> assertThat(ex.getCurrentToken()).isEqualTo(stale.newer().fencingToken()));
		assertThat(this.template.opsForValue().get(this.key)).isEqualTo("newer");
		String hash = this.key + ":hash";
		this.fencing.putAll(hash, Map.of("count", "1"), stale.newer());
		assertThatExceptionOfType(StaleFencingTokenException.class)
			.isThrownBy(() -> this.fencing.putAll(hash, Map.of("count", "999"), stale.older()));
		assertThat(this.template.opsForHash().get(hash, "count")).isEqualTo("1");
	}

	@Test
	void aReadUnderANewerLockShutsOutTheOlderHoldersWrite() {
		this.template.opsForValue().set(this.key, "10");
		Holds stale = this.holders.staleAndNewer();
		// The stale holder read before its lease ran out; the newer one reads now.
		assertThat(this.fencing.get(this.key, stale.newer())).isEqualTo("10");
		assertThatExceptionOfType(StaleFencingTokenException.class)
			.isThrownBy(() -> this.fencing.set(this.key, "9", stale.older()));
		assertThatExceptionOfType(StaleFencingTokenException.class)
			.isThrownBy(() -> this.fencing.get(this.key, stale.older()));
		this.fencing.set(this.key, "8", stale.newer());
		assertThat(this.fencing.get(this.key + ":none", stale.newer())).isNull();
		assertThat(this.template.opsForValue().get(this.key)).isEqualTo("8");
	}

	@Test
	void negativeControlThePlainTemplateLetsTheStaleWriteLand() {
		this.holders.staleAndNewer();
		this.template.opsForValue().set(this.key, "newer");
		this.template.opsForValue().set(this.key, "stale");
		assertThat(this.template.opsForValue().get(this.key)).isEqualTo("stale");
	}

	@Test
	void writesOfTheLockTheThreadHoldsPassAgainAndAgain() {
		this.holders.second().executeLocked(LockRequest.of(this.key).waitTime(Duration.ofSeconds(2)), () -> {
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

}

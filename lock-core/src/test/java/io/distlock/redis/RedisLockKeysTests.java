package io.distlock.redis;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.ClusterSlotHashUtil;

import io.distlock.core.LockConfigurationException;
import io.distlock.core.LockKeyException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class RedisLockKeysTests {

	private final RedisLockKeys keys = new RedisLockKeys("distlock:");

	@Test
	void everyKeyOfALockSharesOneHashSlot() {
		for (String key : new String[] { "stock:42", "a}b", "with space", "ünïcode", "{nested}" }) {
			int slot = ClusterSlotHashUtil.calculateSlot(this.keys.lock(key));
			assertThat(ClusterSlotHashUtil.calculateSlot(this.keys.fence(key))).isEqualTo(slot);
			assertThat(ClusterSlotHashUtil.calculateSlot(this.keys.waiting(key))).isEqualTo(slot);
		}
	}

	@Test
	void namesFollowThePrefixAndHashTag() {
		assertThat(new String(this.keys.lock("stock:42"), StandardCharsets.UTF_8)).isEqualTo("distlock:{stock:42}");
		assertThat(new String(this.keys.fence("stock:42"), StandardCharsets.UTF_8))
			.isEqualTo("distlock:{stock:42}:fence");
		assertThat(new String(this.keys.channel(), StandardCharsets.UTF_8)).isEqualTo("distlock:released");
	}

	@Test
	void rejectsAPrefixOrKeyThatBreaksTheHashTag() {
		assertThatExceptionOfType(LockConfigurationException.class).isThrownBy(() -> new RedisLockKeys("a}"))
			.withMessage("keyPrefix must not contain '{' or '}' (they delimit the hash tag) but was 'a}'");
		assertThatExceptionOfType(LockKeyException.class).isThrownBy(() -> this.keys.lockKey("}x"));
	}

	@Test
	void scriptsHaveStableShas() {
		assertThat(ExclusiveScripts.ACQUIRE.sha1()).hasSize(40).isNotEqualTo(ExclusiveScripts.RELEASE.sha1());
	}

}

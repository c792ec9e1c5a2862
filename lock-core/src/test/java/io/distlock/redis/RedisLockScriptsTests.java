package io.distlock.redis;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The one-integer answers of the acquire and checkpoint scripts decode as documented: a positive
 * answer is a token, and {@code -2 - ttl} gives back the holder's remaining time, -1 when unknown.
 */
class RedisLockScriptsTests {

	@Test
	void holderTtlUndoesMinusTwoMinusTtl() {
		assertThat(RedisLockScripts.holderTtl(-1)).as("pttl -1: no expiry, unknown").isEqualTo(-1);
		assertThat(RedisLockScripts.holderTtl(-2)).isZero();
		assertThat(RedisLockScripts.holderTtl(0)).isEqualTo(-2);
		assertThat(RedisLockScripts.holderTtl(-1002)).isEqualTo(1000);
	}

	@Test
	void onlyAPositiveAnswerIsAToken() {
		assertThat(RedisLockScripts.isToken(1)).isTrue();
		assertThat(RedisLockScripts.isToken(1_764_000_000_000_000L)).isTrue();
		assertThat(RedisLockScripts.isToken(0)).isFalse();
		assertThat(RedisLockScripts.isToken(-1)).isFalse();
		assertThat(RedisLockScripts.isToken(RedisLockScripts.RELEASED_AWAITED)).isFalse();
		assertThat(RedisLockScripts.isToken(RedisLockScripts.NOT_HELD)).isFalse();
	}

}

package io.distlock.redis;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The one-integer answers of the acquire and checkpoint scripts decode as documented: a positive
 * answer is a token, and {@code -2 - ttl} gives back the holder's remaining time, -1 when unknown.
 */
class LockTokensTests {

	@Test
	void holderTtlUndoesMinusTwoMinusTtl() {
		assertThat(LockTokens.holderTtl(-1)).as("pttl -1: no expiry, unknown").isEqualTo(-1);
		assertThat(LockTokens.holderTtl(-2)).isZero();
		assertThat(LockTokens.holderTtl(0)).isEqualTo(-2);
		assertThat(LockTokens.holderTtl(-1002)).isEqualTo(1000);
	}

	@Test
	void onlyAPositiveAnswerIsAToken() {
		assertThat(LockTokens.isToken(1)).isTrue();
		assertThat(LockTokens.isToken(1_764_000_000_000_000L)).isTrue();
		assertThat(LockTokens.isToken(0)).isFalse();
		assertThat(LockTokens.isToken(-1)).isFalse();
		assertThat(LockTokens.isToken(HandoffScripts.RELEASED_AWAITED)).isFalse();
		assertThat(LockTokens.isToken(HandoffScripts.NOT_HELD)).isFalse();
	}

}

package io.distlock.redis;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which Redis keys a keyspace event names a registry's lock by, and which server settings emit
 * the events.
 */
class KeyspaceLossEventsTests {

	private final KeyspaceLossEvents events = new KeyspaceLossEvents(null, new RedisLockKeys("distlock:"));

	@Test
	void lockAndWriteKeysNameTheirUserKey() {
		assertThat(this.events.userKey("distlock:{stock:42}")).isEqualTo("stock:42");
		assertThat(this.events.userKey("distlock:{stock:42}:write")).isEqualTo("stock:42");
		assertThat(this.events.userKey("distlock:{user:{42}}")).isEqualTo("user:{42}");
		assertThat(this.events.userKey("distlock:{a}:write}")).as("a user key ending in '}:write'")
			.isEqualTo("a}:write");
	}

	@Test
	void auxiliaryAndForeignKeysNameNothing() {
		assertThat(this.events.userKey("distlock:{stock:42}:fence")).isNull();
		assertThat(this.events.userKey("distlock:{stock:42}:waiting")).isNull();
		assertThat(this.events.userKey("distlock:{stock:42}:readers")).isNull();
		assertThat(this.events.userKey("other:{stock:42}")).isNull();
		assertThat(this.events.userKey("stock:42")).isNull();
	}

	@Test
	void theServerMustEmitKeyeventsForDeletionsExpiriesAndEvictions() {
		assertThat(KeyspaceLossEvents.emitsLossEvents("Egxe")).isTrue();
		assertThat(KeyspaceLossEvents.emitsLossEvents("xeEg")).isTrue();
		assertThat(KeyspaceLossEvents.emitsLossEvents("EA")).isTrue();
		assertThat(KeyspaceLossEvents.emitsLossEvents("AKE")).isTrue();
		assertThat(KeyspaceLossEvents.emitsLossEvents("")).isFalse();
		assertThat(KeyspaceLossEvents.emitsLossEvents("Kgxe")).as("keyspace, not keyevent").isFalse();
		assertThat(KeyspaceLossEvents.emitsLossEvents("Egx")).as("no evictions").isFalse();
		assertThat(KeyspaceLossEvents.emitsLossEvents("Ex")).as("no deletions").isFalse();
	}

}

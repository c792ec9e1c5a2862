package io.distlock.redis;

import java.util.Properties;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class EvictionPolicyTests {

	@Test
	void evictsOnlyWithAMemoryLimitAndAPolicyOtherThanNoEviction() {
		assertThat(EvictionPolicy.of(config("maxmemory", "0", "maxmemory-policy", "allkeys-lru")).mayEvictLocks())
			.as("no limit").isFalse();
		assertThat(EvictionPolicy.of(config("maxmemory", "2097152", "maxmemory-policy", "noeviction")).mayEvictLocks())
			.isFalse();
		EvictionPolicy volatileLru = EvictionPolicy.of(config("maxmemory", "2097152", "maxmemory-policy", "volatile-lru"));
		assertThat(volatileLru.mayEvictLocks()).isTrue();
		assertThat(volatileLru).isEqualTo(new EvictionPolicy("volatile-lru", 2_097_152));
	}

	@Test
	void aClusterEvictsIfAnyNodeDoes() {
		EvictionPolicy policy = EvictionPolicy.of(config("10.0.0.1:7000.maxmemory", "0", "10.0.0.1:7000.maxmemory-policy",
				"noeviction", "10.0.0.2:7000.maxmemory", "1048576", "10.0.0.2:7000.maxmemory-policy", "volatile-ttl"));
		assertThat(policy).isEqualTo(new EvictionPolicy("volatile-ttl", 1_048_576));
		assertThat(policy.mayEvictLocks()).isTrue();
	}

	private static Properties config(String... namesAndValues) {
		Properties properties = new Properties();
		for (int i = 0; i < namesAndValues.length; i += 2) {
			properties.setProperty(namesAndValues[i], namesAndValues[i + 1]);
		}
		return properties;
	}

}

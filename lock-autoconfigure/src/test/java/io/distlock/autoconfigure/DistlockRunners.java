package io.distlock.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.distlock.test.redis.RedisServer;

/**
 * Context runners on a real Redis, shared by the auto-configuration tests.
 */
final class DistlockRunners {

	private DistlockRunners() {
	}

	/**
	 * The distlock auto-configurations with Redis and AOP, without metrics.
	 */
	static ApplicationContextRunner withRedis(RedisServer redis) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, AopAutoConfiguration.class,
					DistlockAutoConfiguration.class, DistlockMetricsAutoConfiguration.class,
					DistlockActuatorAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port());
	}

	/**
	 * As {@link #withRedis} on the first node, with {@code distlock.redlock.nodes} naming the
	 * given servers in order: the auto-configuration makes a Redlock registry over them.
	 */
	static ApplicationContextRunner withRedlock(RedisServer... nodes) {
		String[] properties = new String[nodes.length];
		for (int i = 0; i < nodes.length; i++) {
			properties[i] = "distlock.redlock.nodes[" + i + "]=redis://" + nodes[i].host() + ":" + nodes[i].port();
		}
		return withRedis(nodes[0]).withPropertyValues(properties);
	}

	/**
	 * As {@link #withRedis}, plus Micrometer with a simple meter registry.
	 */
	static ApplicationContextRunner withRedisAndMetrics(RedisServer redis) {
		return withRedis(redis).withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
				CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class));
	}

	/**
	 * Return the {@link InvalidLockPropertyException} behind a startup failure.
	 */
	static InvalidLockPropertyException invalidProperty(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof InvalidLockPropertyException invalid) {
				return invalid;
			}
		}
		throw new AssertionError("No InvalidLockPropertyException in", failure);
	}

}

package io.distlock.autoconfigure;

import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import io.distlock.metrics.MicrometerLockListener;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration Auto-configuration}
 * for the {@code distlock.*} meters, when Micrometer is present.
 */
@AutoConfiguration(before = DistlockAutoConfiguration.class,
		afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
				"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration" })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnBooleanProperty(name = { "distlock.enabled", "distlock.metrics.enabled" }, matchIfMissing = true)
public final class DistlockMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	MicrometerLockListener distlockMetricsListener(MeterRegistry meterRegistry) {
		return new MicrometerLockListener(meterRegistry);
	}

}

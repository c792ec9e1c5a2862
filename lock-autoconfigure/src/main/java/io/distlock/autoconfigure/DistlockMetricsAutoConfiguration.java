package io.distlock.autoconfigure;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.distlock.metrics.MicrometerLockListener;
import io.distlock.metrics.ObservationLockListener;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration Auto-configuration}
 * for the {@code distlock.*} meters and the acquisition and holding observations, when
 * Micrometer is present.
 */
@AutoConfiguration(before = DistlockAutoConfiguration.class,
		afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
				"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
				"org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration" })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBooleanProperty(name = { "distlock.enabled", "distlock.metrics.enabled" }, matchIfMissing = true)
public final class DistlockMetricsAutoConfiguration {

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBean(MeterRegistry.class)
	static class MeterConfiguration {

		@Bean
		@ConditionalOnMissingBean
		MicrometerLockListener distlockMetricsListener(MeterRegistry meterRegistry) {
			return new MicrometerLockListener(meterRegistry);
		}

		@Bean
		static LockWaitHistogramMeterFilter distlockWaitHistogramMeterFilter() {
			return new LockWaitHistogramMeterFilter();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(ObservationRegistry.class)
	@ConditionalOnBean(ObservationRegistry.class)
	static class ObservationConfiguration {

		@Bean
		@ConditionalOnMissingBean
		ObservationLockListener distlockObservationListener(ObservationRegistry observationRegistry) {
			return new ObservationLockListener(observationRegistry);
		}

	}

}

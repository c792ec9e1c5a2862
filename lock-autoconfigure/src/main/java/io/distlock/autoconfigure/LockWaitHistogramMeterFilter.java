package io.distlock.autoconfigure;

import java.time.Duration;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;

/**
 * Publishes a histogram for {@code distlock.acquire}, so that a monitoring system can compute
 * the p99 wait across instances (the alert rules and the dashboard in {@code docs/dashboards}
 * use it). Buckets span 1ms to 60s. An application that sets
 * {@code management.metrics.distribution.percentiles-histogram.distlock.acquire} decides
 * instead: this filter only fills in a value nobody set.
 */
class LockWaitHistogramMeterFilter implements MeterFilter {

	private static final String ACQUIRE = "distlock.acquire";

	@Override
	public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
		if (!ACQUIRE.equals(id.getName()) || config.isPercentileHistogram() != null) {
			return config;
		}
		return DistributionStatisticConfig.builder()
			.percentilesHistogram(true)
			.minimumExpectedValue((double) Duration.ofMillis(1).toNanos())
			.maximumExpectedValue((double) Duration.ofSeconds(60).toNanos())
			.build()
			.merge(config);
	}

}

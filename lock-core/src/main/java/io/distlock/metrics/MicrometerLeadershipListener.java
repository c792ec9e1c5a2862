package io.distlock.metrics;

import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import io.distlock.leader.Leadership;
import io.distlock.leader.LeadershipListener;
import io.distlock.leader.RevocationReason;

/**
 * Records leadership changes as Micrometer meters, tagged with the role (a bounded name from
 * configuration): {@code distlock.leader.changes} (counter; {@code change} granted or revoked,
 * {@code reason} of a revocation) and {@code distlock.leader.time} (timer: how long each term of
 * this instance lasted, recorded when it ends).
 */
public class MicrometerLeadershipListener implements LeadershipListener {

	private final MeterRegistry registry;

	private final Map<Leadership, Long> grantedAt = new ConcurrentHashMap<>();

	/**
	 * Create a listener recording into the given registry.
	 * @param registry the meter registry
	 */
	public MicrometerLeadershipListener(MeterRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void granted(Leadership leadership) {
		this.grantedAt.put(leadership, System.nanoTime());
		changes(leadership.role(), "granted", "none").increment();
	}

	@Override
	public void revoked(Leadership leadership, RevocationReason reason) {
		changes(leadership.role(), "revoked", reason.name().toLowerCase(Locale.ROOT).replace('_', '-')).increment();
		Long start = this.grantedAt.remove(leadership);
		if (start != null) {
			Timer.builder("distlock.leader.time")
				.description("How long this instance led the role, per term")
				.tag("role", leadership.role())
				.register(this.registry)
				.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
		}
	}

	private Counter changes(String role, String change, String reason) {
		return Counter.builder("distlock.leader.changes")
			.description("Leadership changes of this instance: grants, and revocations by reason")
			.tag("role", role)
			.tag("change", change)
			.tag("reason", reason)
			.register(this.registry);
	}

}

package io.distlock.actuate;

import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

import io.distlock.leader.LeaderElection;
import io.distlock.leader.LeaderElections;

/**
 * Health of this instance's leader elections: UP while every election runs, a detail per role
 * saying whether this instance leads it (with the epoch). Following is healthy; an election that
 * stopped while the application runs is not (OUT_OF_SERVICE), as the instance no longer
 * competes for the role.
 */
public class LeadershipHealthIndicator extends AbstractHealthIndicator {

	private final LeaderElections elections;

	/**
	 * Create the health indicator.
	 * @param elections the application's elections
	 */
	public LeadershipHealthIndicator(LeaderElections elections) {
		super("Leader election health check failed");
		this.elections = elections;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		boolean allRunning = true;
		for (LeaderElection election : this.elections.all()) {
			Map<String, Object> detail = new LinkedHashMap<>();
			detail.put("key", election.key());
			election.leadership().ifPresentOrElse((term) -> {
				detail.put("state", "leader");
				detail.put("epoch", term.epoch());
			}, () -> detail.put("state", election.isRunning() ? "follower" : "stopped"));
			builder.withDetail(election.role(), detail);
			allRunning &= election.isRunning();
		}
		if (allRunning) {
			builder.up();
		}
		else {
			builder.outOfService();
		}
	}

}

package io.distlock.actuate;

import java.util.List;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

import io.distlock.leader.LeaderElection;
import io.distlock.leader.LeaderElections;
import io.distlock.leader.Leadership;

/**
 * The {@code leaders} Actuator endpoint: each role this instance competes for, the key of its
 * lock, and whether this instance leads it now, with the epoch and since when.
 */
@Endpoint(id = "leaders")
public class LeadersEndpoint {

	private final LeaderElections elections;

	/**
	 * Create the endpoint.
	 * @param elections the application's elections
	 */
	public LeadersEndpoint(LeaderElections elections) {
		this.elections = elections;
	}

	/**
	 * Return the roles.
	 * @return the roles, in configuration order
	 */
	@ReadOperation
	public LeadersDescriptor leaders() {
		return new LeadersDescriptor(this.elections.all().stream().map(LeadersEndpoint::describe).toList());
	}

	private static RoleDescriptor describe(LeaderElection election) {
		Leadership term = election.leadership().orElse(null);
		String state = !election.isRunning() ? "stopped" : (term != null) ? "leader" : "follower";
		return new RoleDescriptor(election.role(), election.key(), state, (term != null) ? term.epoch() : null,
				(term != null) ? term.grantedAt().toString() : null);
	}

	/**
	 * The endpoint's answer.
	 * @param roles one entry per role
	 */
	public record LeadersDescriptor(List<RoleDescriptor> roles) {
	}

	/**
	 * One role as this instance sees it.
	 * @param role the role
	 * @param key the key of its lock
	 * @param state {@code leader}, {@code follower} or {@code stopped}
	 * @param epoch the epoch of this instance's term, when it leads
	 * @param since when this instance was granted the role, when it leads
	 */
	public record RoleDescriptor(String role, String key, String state, Long epoch, String since) {
	}

}

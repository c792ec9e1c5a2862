package io.distlock.leader;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import org.springframework.context.SmartLifecycle;

import io.distlock.core.LockConfigurationException;

/**
 * The leader elections of an application, one per role, started with the application context
 * and stopped first when it closes, so that a leader yields its roles (revocation listeners run,
 * the locks are released) while the rest of the application still runs and another instance
 * takes over at once.
 */
public class LeaderElections implements SmartLifecycle, AutoCloseable {

	private final Map<String, LeaderElection> elections = new LinkedHashMap<>();

	private volatile boolean running;

	/**
	 * Create the set of elections.
	 * @param elections the elections, one per role
	 * @throws LockConfigurationException if two elections decide the same role
	 */
	public LeaderElections(Collection<LeaderElection> elections) {
		for (LeaderElection election : elections) {
			if (this.elections.putIfAbsent(election.role(), election) != null) {
				throw new LockConfigurationException("Two leader elections decide role '" + election.role()
						+ "': configure each role once, under distlock.leader.roles or as a LeaderElection bean");
			}
		}
	}

	/**
	 * Return the election of a role.
	 * @param role the role
	 * @return the election, or empty if no election decides it
	 */
	public Optional<LeaderElection> find(String role) {
		return Optional.ofNullable(this.elections.get(role));
	}

	/**
	 * Return every election, in the order given.
	 * @return the elections
	 */
	public Collection<LeaderElection> all() {
		return this.elections.values();
	}

	@Override
	public void start() {
		this.elections.values().forEach(LeaderElection::start);
		this.running = true;
	}

	@Override
	public void stop() {
		this.elections.values().forEach(LeaderElection::stop);
		this.running = false;
	}

	/**
	 * Stop every election and its threads (the destroy method of the bean).
	 */
	@Override
	public void close() {
		this.elections.values().forEach(LeaderElection::close);
		this.running = false;
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	/**
	 * Return {@link SmartLifecycle#DEFAULT_PHASE}: started after the beans it may start, stopped
	 * before them.
	 */
	@Override
	public int getPhase() {
		return DEFAULT_PHASE;
	}

}

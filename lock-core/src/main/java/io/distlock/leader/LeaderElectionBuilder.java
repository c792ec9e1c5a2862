package io.distlock.leader;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

import io.distlock.core.LockRegistry;
import io.distlock.core.LockRequest;

/**
 * Builds a {@link LeaderElection}.
 */
public final class LeaderElectionBuilder {

	final LockRegistry registry;

	final String role;

	@Nullable String key;

	Duration retryInterval = Duration.ofSeconds(1);

	@Nullable Duration renewDeadline;

	final List<LeadershipListener> listeners = new ArrayList<>();

	LeaderElectionBuilder(LockRegistry registry, String role) {
		this.registry = Objects.requireNonNull(registry, "registry must not be null");
		if (role == null || role.isBlank()) {
			throw new IllegalArgumentException("role must not be blank but was '" + role + "'");
		}
		this.role = role;
	}

	/**
	 * Set the key of the role's lock.
	 * @param key the key; {@code leader:<role>} by default
	 * @return this builder
	 */
	public LeaderElectionBuilder key(String key) {
		this.key = LockRequest.of(key).key();
		return this;
	}

	/**
	 * Set how long an instance that does not lead waits for the lock at a time (jittered by
	 * a quarter either way); release notifications wake it earlier.
	 * @param retryInterval the interval, positive; 1 second by default
	 * @return this builder
	 */
	public LeaderElectionBuilder retryInterval(Duration retryInterval) {
		if (retryInterval == null || retryInterval.isNegative() || retryInterval.isZero()) {
			throw new IllegalArgumentException("retryInterval must be positive but was '" + retryInterval + "'");
		}
		this.retryInterval = retryInterval;
		return this;
	}

	/**
	 * Set how long a leader goes on without a confirmed renewal of its lock before it steps
	 * down by itself. Shorter than the registry's lease, longer than its renewal interval.
	 * @param renewDeadline the deadline, or {@code null} for two thirds of the lease
	 * @return this builder
	 */
	public LeaderElectionBuilder renewDeadline(@Nullable Duration renewDeadline) {
		if (renewDeadline != null && (renewDeadline.isNegative() || renewDeadline.isZero())) {
			throw new IllegalArgumentException("renewDeadline must be positive but was '" + renewDeadline + "'");
		}
		this.renewDeadline = renewDeadline;
		return this;
	}

	/**
	 * Add a listener, told in the order added.
	 * @param listener the listener
	 * @return this builder
	 */
	public LeaderElectionBuilder listener(LeadershipListener listener) {
		this.listeners.add(Objects.requireNonNull(listener, "listener must not be null"));
		return this;
	}

	/**
	 * Build the election, not started.
	 * @return the election
	 */
	public LeaderElection build() {
		return new LeaderElection(this);
	}

}

package io.distlock.leader;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import io.distlock.core.LockRegistry;

/**
 * The election of one role's leader among the instances that run it, over one lock of any
 * {@link LockRegistry}: the instance that holds the lock leads, with the grant's fencing token as
 * its epoch.
 * <p>
 * While not leading, the election waits for the lock (a jittered {@code retryInterval} at a time,
 * woken by the registry's release notifications). Once granted, it tells its listeners and
 * watches the lease: it steps down when the lease is lost, and by itself when no renewal was
 * confirmed within the renew deadline (by default two thirds of the lease), so that it stops
 * acting before its lease can expire. {@link #stop()} steps down and releases the lock, so a
 * waiting instance takes over at once.
 * <p>
 * The election runs on a thread of its own ({@code distlock-leader-<role>}); listeners run on
 * another ({@code distlock-leader-<role>-events}), never on a thread of the store's driver.
 * {@link #leadership()} checks the lease when it is called, so that a process resumed after a
 * long pause sees that it no longer leads before its election thread has run.
 *
 * <pre class="code">
 * LeaderElection election = LeaderElection.builder(registry, "billing").listener(listener).build();
 * election.start();
 * election.runIfLeader((term) -&gt; fencing.set("billing:last-run", now, term.lease()));
 * </pre>
 */
public final class LeaderElection implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(LeaderElection.class);

	private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

	private final String role;

	private final String key;

	private final ElectionLoop loop;

	LeaderElection(LeaderElectionBuilder builder) {
		this.role = builder.role;
		this.key = (builder.key != null) ? builder.key : "leader:" + builder.role;
		this.loop = new ElectionLoop(builder, this.key);
	}

	/**
	 * Start building the election of a role.
	 * @param registry the registry whose lock decides the leader
	 * @param role the role's name, such as {@code billing}
	 * @return the builder
	 */
	public static LeaderElectionBuilder builder(LockRegistry registry, String role) {
		return new LeaderElectionBuilder(registry, role);
	}

	/**
	 * Return the role this election decides.
	 * @return the role
	 */
	public String role() {
		return this.role;
	}

	/**
	 * Return the key of the role's lock.
	 * @return the key, {@code leader:<role>} unless set
	 */
	public String key() {
		return this.key;
	}

	/**
	 * Return whether the election runs: started and not stopped.
	 * @return whether it runs
	 */
	public boolean isRunning() {
		return this.loop.isRunning();
	}

	/**
	 * Return the current term if this instance leads the role now: its lease is valid and its
	 * last renewal is more recent than the renew deadline. Checked at each call.
	 * @return the term, or empty when this instance does not lead the role
	 */
	public Optional<Leadership> leadership() {
		Term current = this.loop.term();
		return (current != null && current.holds()) ? Optional.of(current.leadership()) : Optional.empty();
	}

	/**
	 * Run an action if this instance leads the role now, as {@code @LeaderOnly} runs a method: a
	 * graceful step-down ({@link #yieldLeadership()}, {@link #stop()}) releases the lock only
	 * after the action returns (or the lease's validity ends), so no other instance leads while it
	 * runs. A loss does not wait: the lock is gone, and fenced writes refuse what the action still
	 * writes.
	 * @param action what to run, given the term
	 * @return whether the action ran
	 */
	public boolean runIfLeader(Consumer<Leadership> action) {
		Term term = enter();
		if (term == null) {
			return false;
		}
		try {
			action.accept(term.leadership());
			return true;
		}
		finally {
			term.exit();
		}
	}

	/** Enter the current term for a call, or {@code null} if this instance does not lead; pair with {@code exit()}. */
	@Nullable Term enter() {
		Term current = this.loop.term();
		return (current != null && current.enter()) ? current : null;
	}

	/**
	 * Return whether this instance leads the role now (see {@link #leadership()}).
	 * @return whether it leads
	 */
	public boolean isLeader() {
		return leadership().isPresent();
	}

	/**
	 * Start competing for the role, or again after {@link #stop()}. Does nothing if running.
	 * @throws IllegalStateException if the election was closed
	 */
	public void start() {
		if (!this.loop.start()) {
			throw new IllegalStateException("Leader election of role '" + this.role + "' was closed");
		}
	}

	/**
	 * Give the role up if this instance leads it, and compete again after the retry interval, so
	 * that another instance, waiting for the lock, takes it over. Returns at once.
	 */
	public void yieldLeadership() {
		this.loop.yieldTerm();
	}

	/**
	 * Stop competing: if this instance leads, its listeners are told of the revocation and the
	 * lock is released after them, so that a waiting instance takes the role over at once. Waits
	 * until that is done (at most 30 seconds). Does nothing if already stopped.
	 */
	public void stop() {
		try {
			this.loop.stop().get(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (TimeoutException | ExecutionException ex) {
			logger.warn("Leader election of role '" + this.role + "' did not step down within " + STOP_TIMEOUT
					+ ": a revocation listener still runs; the role's lock is released after it");
		}
	}

	/**
	 * Stop the election ({@link #stop()}) and its threads.
	 */
	@Override
	public void close() {
		stop();
		this.loop.close();
	}

}

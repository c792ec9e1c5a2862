package io.distlock.test.leader;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.distlock.redis.RedisLockRegistry;
import io.distlock.redlock.RedlockRegistry;
import io.distlock.test.redis.LoopbackConnectionFactories;

/**
 * The candidate JVM of {@link AbstractLeaderElectionFaultTests} on distlock's Redis stores.
 * Arguments: {@code redis} or {@code redlock}, the lock nodes' ports (comma-separated), then
 * those of {@link LeaderCandidate}.
 */
public final class LeaderCandidateMain {

	// Lettuce's default: the registry bounds its own calls by the lease and the wait time.
	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(60);

	private LeaderCandidateMain() {
	}

	/**
	 * Run a {@link LeaderCandidate} on a {@link RedisLockRegistry} of the first node, or on a
	 * {@link RedlockRegistry} of all of them.
	 * @param args {@code redis} or {@code redlock}, the ports, then the candidate's arguments
	 * @throws Exception if the candidate could not run
	 */
	public static void main(String[] args) throws Exception {
		List<LettuceConnectionFactory> nodes = new ArrayList<>();
		for (String port : args[1].split(",")) {
			nodes.add(LoopbackConnectionFactories.start(Integer.parseInt(port), COMMAND_TIMEOUT));
		}
		boolean redlock = "redlock".equals(args[0]);
		LeaderCandidate.run(Arrays.asList(args).subList(2, args.length), (lease) -> redlock
				? RedlockRegistry.builder(nodes).leaseTime(lease).build()
				: RedisLockRegistry.builder(nodes.get(0)).leaseTime(lease).build());
	}

}

package io.distlock.faults;

import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.distlock.test.leader.AbstractLeaderElectionFaultTests;
import io.distlock.test.leader.LeaderCandidateMain;
import io.distlock.test.redis.RedisNodesExtension;

/**
 * The leader election fault tests of {@link AbstractLeaderElectionFaultTests} on a Redlock of
 * three independent Redis nodes.
 */
@Tag("fault")
@Timeout(120)
class RedlockLeaderElectionFaultIntegrationTests extends AbstractLeaderElectionFaultTests {

	@RegisterExtension
	static final RedisNodesExtension nodes = new RedisNodesExtension(3, Duration.ofSeconds(2));

	@Override
	protected Class<?> candidateMainClass() {
		return LeaderCandidateMain.class;
	}

	@Override
	protected List<String> storeArguments() {
		String ports = nodes.servers().stream().map((server) -> Integer.toString(server.port()))
			.collect(Collectors.joining(","));
		return List.of("redlock", ports);
	}

}

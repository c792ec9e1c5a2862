package io.distlock.faults;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.distlock.test.redis.RedisNodesExtension;
import io.distlock.test.redis.RedisServer;

/**
 * The leader election fault tests of {@link LeaderElectionFaultTests} on a Redlock of three
 * independent Redis nodes.
 */
@Tag("fault")
@Timeout(120)
class RedlockLeaderElectionFaultIntegrationTests extends LeaderElectionFaultTests {

	@RegisterExtension
	static final RedisNodesExtension nodes = new RedisNodesExtension(3, Duration.ofSeconds(2));

	@Override
	String store() {
		return "redlock";
	}

	@Override
	List<Integer> nodePorts() {
		return nodes.servers().stream().map(RedisServer::port).toList();
	}

}

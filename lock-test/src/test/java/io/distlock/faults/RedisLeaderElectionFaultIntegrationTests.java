package io.distlock.faults;

import java.util.List;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.distlock.test.redis.RedisServerExtension;

/**
 * The leader election fault tests of {@link LeaderElectionFaultTests} on one Redis.
 */
@Tag("fault")
@Timeout(120)
class RedisLeaderElectionFaultIntegrationTests extends LeaderElectionFaultTests {

	@RegisterExtension
	static final RedisServerExtension lockServer = new RedisServerExtension();

	@Override
	String store() {
		return "redis";
	}

	@Override
	List<Integer> nodePorts() {
		return List.of(lockServer.server().port());
	}

}

package io.distlock.faults;

import java.util.List;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.distlock.test.leader.AbstractLeaderElectionFaultTests;
import io.distlock.test.leader.LeaderCandidateMain;
import io.distlock.test.redis.RedisServerExtension;

/**
 * The leader election fault tests of {@link AbstractLeaderElectionFaultTests} on one Redis.
 */
@Tag("fault")
@Timeout(120)
class RedisLeaderElectionFaultIntegrationTests extends AbstractLeaderElectionFaultTests {

	@RegisterExtension
	static final RedisServerExtension lockServer = new RedisServerExtension();

	@Override
	protected Class<?> candidateMainClass() {
		return LeaderCandidateMain.class;
	}

	@Override
	protected List<String> storeArguments() {
		return List.of("redis", Integer.toString(lockServer.server().port()));
	}

}

package io.distlock.jdbc;

import java.util.List;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.distlock.test.leader.AbstractLeaderElectionFaultTests;

/**
 * The leader election fault tests of {@link AbstractLeaderElectionFaultTests} on the PostgreSQL
 * store: three candidate JVMs ({@link PostgresLeaderCandidateMain}) on a real PostgreSQL 18 that
 * stays up; the leader is the one killed and paused. The fenced resource is the suite's, in its
 * Redis oracle, as on the Redis stores.
 */
@Tag("fault")
@Timeout(120)
class PostgresLeaderElectionFaultIntegrationTests extends AbstractLeaderElectionFaultTests {

	@RegisterExtension
	static final PostgresServerExtension postgres = new PostgresServerExtension();

	@Override
	protected Class<?> candidateMainClass() {
		return PostgresLeaderCandidateMain.class;
	}

	@Override
	protected List<String> storeArguments() {
		return List.of(Integer.toString(postgres.postgres().getPort()));
	}

}

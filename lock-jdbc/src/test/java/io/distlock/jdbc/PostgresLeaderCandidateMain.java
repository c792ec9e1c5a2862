package io.distlock.jdbc;

import java.util.Arrays;

import com.zaxxer.hikari.HikariDataSource;

import io.distlock.test.leader.LeaderCandidate;

/**
 * The candidate JVM of {@link PostgresLeaderElectionFaultIntegrationTests}: a
 * {@link LeaderCandidate} on a {@link PostgresLockRegistry} with a pool of its own, as another
 * instance of an application has. Arguments: the PostgreSQL port, then those of
 * {@link LeaderCandidate}.
 */
public final class PostgresLeaderCandidateMain {

	private PostgresLeaderCandidateMain() {
	}

	public static void main(String[] args) throws Exception {
		HikariDataSource pool = PostgresServerExtension.pool(Integer.parseInt(args[0]), 8);
		LeaderCandidate.run(Arrays.asList(args).subList(1, args.length),
				(lease) -> PostgresLockRegistry.builder(pool).leaseTime(lease).build());
	}

}

package io.distlock.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.distlock.core.LockLease;
import io.distlock.core.LockRequest;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.test.redis.RedisServer;
import io.distlock.test.report.FaultReport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * T31 (and T20): fencing tokens grow strictly across expiry, holder churn, an administrator's
 * {@code DEL} of the lock and its token, and Redis restarts, with and without persistence.
 */
@Tag("fault")
@Timeout(300)
class FencingFaultIntegrationTests {

	@Test
	void t31TokensGrowStrictlyThroughChurnDeletesAndRestarts() throws Exception {
		try (RedisServer redis = RedisServer.start("--appendonly", "yes", "--appendfsync", "always")) {
			String key = "t31:" + UUID.randomUUID();
			List<Long> tokens = new ArrayList<>();
			int deletes = 0;
			int expired = 0;
			int restarts = 0;
			int grants = 3_000;
			for (int block = 0; block < 6; block++) {
				LettuceConnectionFactory factory = redis.newConnectionFactory(Duration.ofSeconds(2));
				List<RedisLockRegistry> processes = List.of(new RedisLockRegistry(factory),
						new RedisLockRegistry(factory), new RedisLockRegistry(factory));
				try {
					for (int i = 0; i < grants / 6; i++) {
						RedisLockRegistry process = processes.get(i % processes.size());
						LockLease lease = process.acquire(LockRequest.of(key).leaseTime(Duration.ofMillis(50))
							.waitTime(Duration.ofSeconds(5)));
						tokens.add(lease.fencingToken());
						if (i % 7 == 0) {
							// Churn: let the lease expire while held; its release then reports the loss.
							Thread.sleep(60);
						}
						// A 50 ms lease can also run out between acquire and release on a loaded
						// machine: a loss either way, which the tokens must survive too.
						try {
							lease.release();
						}
						catch (io.distlock.core.LockLostException expected) {
							expired++;
						}
					}
				}
				finally {
					processes.forEach(RedisLockRegistry::close);
					factory.destroy();
				}
				if (block % 2 == 0) {
					// An operator deletes the lock and its token.
					redis.command("DEL", "distlock:{" + key + "}", "distlock:{" + key + "}:fence");
					deletes++;
				}
				else {
					redis.kill();
					redis.restart();
					restarts++;
				}
			}
			for (int i = 1; i < tokens.size(); i++) {
				assertThat(tokens.get(i)).as("token of grant " + i).isGreaterThan(tokens.get(i - 1));
			}
			Set<Long> distinct = new HashSet<>(tokens);
			assertThat(distinct).hasSize(tokens.size());
			assertThat(expired).isPositive();
			FaultReport.row("T31", "3 registries, 3,000 grants, " + expired + " leases expired while held, " + deletes
					+ " admin DELs of lock and token, " + restarts + " kill -9 restarts",
					"tokens keep growing", "3,000 tokens strictly increasing, 0 duplicates, no reset");
		}
	}

	@Test
	void t20ARestartWithoutPersistenceDoesNotResetTheToken() throws Exception {
		try (RedisServer redis = RedisServer.start();
				RedisLockRegistry registry = new RedisLockRegistry(redis.connectionFactory())) {
			String key = "t20:" + UUID.randomUUID();
			long before;
			try (LockLease lease = registry.acquire(key, Duration.ZERO)) {
				before = lease.fencingToken();
			}
			redis.kill();
			redis.restart();
			long after;
			try (LockLease lease = registry.acquire(key, Duration.ofSeconds(10))) {
				after = lease.fencingToken();
			}
			assertThat(after).isGreaterThan(before);
			FaultReport.row("T20", "kill -9 and restart without persistence",
					"the token does not reset (it follows the server clock); a fenced resource never fails closed here",
					"token " + before + " then " + after);
		}
	}

}

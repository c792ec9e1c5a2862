package io.distlock.autoconfigure;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import io.distlock.test.redis.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Catalogue B21's Redlock half: a Redlock node that keeps no append-only file, and so comes back
 * empty after a crash, is reported at startup by its address, or refused with
 * {@code distlock.redlock.persistence-check=strict}; declaring a delayed restart
 * ({@code distlock.redlock.restart-delay}) is the other remedy and turns the check off. A node
 * that cannot be read: {@link RedlockNodeChecksTests}.
 */
@ExtendWith(OutputCaptureExtension.class)
class RedlockPersistenceCheckTests {

	private static final String WARNING = "keeps no append-only file (appendonly no)";

	private static RedisServer volatileNode;

	private static RedisServer durable;

	private static RedisServer durable2;

	@BeforeAll
	static void start() {
		volatileNode = RedisServer.start();
		durable = RedisServer.start("--appendonly", "yes", "--appendfsync", "always");
		durable2 = RedisServer.start("--appendonly", "yes", "--appendfsync", "always");
	}

	@AfterAll
	static void stop() {
		volatileNode.close();
		durable.close();
		durable2.close();
	}

	@Test
	void aNodeWithoutAnAppendOnlyFileIsReportedByItsAddress(CapturedOutput output) {
		redlock(durable, volatileNode, durable2).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output).contains("Distributed locks: the Redlock node 127.0.0.1:" + volatileNode.port() + " "
					+ WARNING + ": if it crashes and comes back at once, empty or from its last snapshot, another "
					+ "instance can count it towards a quorum for a lock that is still held")
				.contains("set distlock.redlock.restart-delay so that a restarted node sits out until every lease it "
						+ "may have lost has run out, or set distlock.redlock.persistence-check=strict to refuse to start")
				.doesNotContain("127.0.0.1:" + durable.port() + " keeps no")
				.doesNotContain("127.0.0.1:" + durable2.port() + " keeps no");
		});
	}

	@Test
	void strictRefusesANodeWithoutAnAppendOnlyFileNamingTheProperty() {
		redlock(durable, volatileNode, durable2).withPropertyValues("distlock.redlock.persistence-check=strict")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(DistlockRunners.invalidProperty(context.getStartupFailure()).getMessage())
					.startsWith("Property 'distlock.redlock.persistence-check' with value 'strict' refuses to start: "
							+ "the Redlock node 127.0.0.1:" + volatileNode.port() + " " + WARNING);
				FailureAnalysis analysis = new LockConfigurationFailureAnalyzer().analyze(context.getStartupFailure());
				assertThat(analysis.getAction())
					.isEqualTo("Update 'distlock.redlock.persistence-check' in your application configuration.");
			});
	}

	@Test
	void aNodeThatFsyncsEverySecondIsReported(CapturedOutput output) {
		try (RedisServer everySecond = RedisServer.start("--appendonly", "yes", "--appendfsync", "everysec")) {
			redlock(durable, everySecond, durable2).run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(output).contains("Distributed locks: the Redlock node 127.0.0.1:" + everySecond.port()
						+ " fsyncs its append-only file only now and then (appendfsync everysec): a power loss or an "
						+ "OS crash can lose its last grants")
					.doesNotContain("127.0.0.1:" + durable.port() + " fsyncs");
			});
		}
	}

	@Test
	void nodesWithAppendOnlyFilesPassTheStrictCheck(CapturedOutput output) {
		try (RedisServer durable3 = RedisServer.start("--appendonly", "yes", "--appendfsync", "always")) {
			redlock(durable, durable2, durable3).withPropertyValues("distlock.redlock.persistence-check=strict")
				.run((context) -> {
					assertThat(context).hasNotFailed();
					assertThat(output).doesNotContain("keeps no append-only file");
				});
		}
	}

	@Test
	void anEnforcedRestartDelayTurnsTheCheckOff(CapturedOutput output) {
		redlock(durable, volatileNode, durable2)
			.withPropertyValues("distlock.redlock.persistence-check=strict", "distlock.redlock.restart-delay=1m")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(output).doesNotContain("keeps no append-only file");
			});
	}

	@Test
	void aRestartDelayShorterThanTheLeaseIsRefusedNamingThePropertyAndTheLease() {
		redlock(durable, volatileNode, durable2)
			.withPropertyValues("distlock.lease-time=30s", "distlock.redlock.restart-delay=10s")
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = new LockConfigurationFailureAnalyzer().analyze(context.getStartupFailure());
				assertThat(analysis.getDescription()).startsWith("Property 'distlock.redlock.restart-delay' is invalid: "
						+ "restartDelay 'PT10S' must be at least the leaseTime 'PT30S'");
				assertThat(analysis.getAction())
					.isEqualTo("Update 'distlock.redlock.restart-delay' in your application configuration.");
			});
	}

	@Test
	void offChecksNothing(CapturedOutput output) {
		redlock(durable, volatileNode, durable2).withPropertyValues("distlock.redlock.persistence-check=off")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(output).doesNotContain("keeps no append-only file");
			});
	}

	@Test
	void aSingleRedisIsNotChecked(CapturedOutput output) {
		DistlockRunners.withRedis(volatileNode).withPropertyValues("distlock.redlock.persistence-check=strict")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(output).doesNotContain("keeps no append-only file");
			});
	}

	private static ApplicationContextRunner redlock(RedisServer first, RedisServer second, RedisServer third) {
		return DistlockRunners.withRedlock(first, second, third)
			.withPropertyValues("distlock.redlock.per-node-timeout=200ms");
	}

}

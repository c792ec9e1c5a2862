package io.distlock.autoconfigure;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import io.distlock.test.redis.RedisServer;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The startup checks that read the configuration of every Redlock node, the eviction check
 * (T22, {@link LockStoreEvictionCheckTests}) and the persistence check (B21,
 * {@link RedlockPersistenceCheckTests}), when a node cannot be read: {@code strict} starts while a
 * quorum of nodes was read, reporting the node it could not read, and refuses to start, naming
 * the property, when no quorum could be read.
 */
@ExtendWith(OutputCaptureExtension.class)
class RedlockNodeChecksTests {

	/** A node that passes both checks: it never evicts (no maxmemory) and fsyncs every write. */
	@RegisterExtension
	static final RedisServerExtension first = new RedisServerExtension("--appendonly", "yes", "--appendfsync",
			"always");

	@RegisterExtension
	static final RedisServerExtension second = new RedisServerExtension("--appendonly", "yes", "--appendfsync",
			"always");

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			distlock.eviction-check            | the eviction policy     | CONFIG GET maxmemory*
			distlock.redlock.persistence-check | the persistence setting | CONFIG GET append*
			""")
	void strictStartsWithANodeDownWhileAQuorumIsRead(String property, String setting, String command,
			CapturedOutput output) {
		try (RedisServer down = RedisServer.start()) {
			down.kill();
			DistlockRunners.withRedlock(first.server(), down, second.server())
				.withPropertyValues("distlock.redlock.per-node-timeout=200ms", property + "=strict")
				.run((context) -> {
					assertThat(context).hasNotFailed();
					assertThat(output).contains("Distributed locks: could not read " + setting + " (" + command
							+ ") of the Redlock node 127.0.0.1:" + down.port());
				});
		}
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			distlock.eviction-check            | the eviction policy     | CONFIG GET maxmemory*
			distlock.redlock.persistence-check | the persistence setting | CONFIG GET append*
			""")
	void strictRefusesWhenNoQuorumOfNodesCanBeRead(String property, String setting, String command) {
		try (RedisServer down = RedisServer.start(); RedisServer alsoDown = RedisServer.start()) {
			down.kill();
			alsoDown.kill();
			DistlockRunners.withRedlock(first.server(), down, alsoDown)
				.withPropertyValues("distlock.redlock.per-node-timeout=200ms", property + "=strict")
				.run((context) -> {
					assertThat(context).hasFailed();
					assertThat(DistlockRunners.invalidProperty(context.getStartupFailure()).getMessage())
						.startsWith("Property '" + property + "' with value 'strict' requires reading " + setting
								+ ", but could not read " + setting + " (" + command + ") of the Redlock node 127.0.0.1:"
								+ down.port());
				});
		}
	}

}

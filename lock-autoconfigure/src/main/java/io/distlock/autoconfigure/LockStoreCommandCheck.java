package io.distlock.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.IntegerOutput;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;
import org.springframework.util.ClassUtils;

import io.distlock.core.LockConfigurationException;
import io.distlock.core.WaitStrategy;
import io.distlock.redis.CommandRefusal;

/**
 * Checks at startup that the Redis holding the locks (the application's, or every Redlock node,
 * in parallel) runs the commands distlock needs, as managed services rename or disable some of
 * them: {@code EVALSHA} always (every lock operation is a Lua script run by SHA), {@code PUBLISH}
 * with {@code distlock.wait-strategy=pub-sub} (the release notification), {@code WAIT} with
 * {@code distlock.replica-acknowledgement.replicas} above 0, and {@code TIME} always (the acquire
 * scripts mint fencing tokens from it). A refused command that the configuration needs stops
 * startup with a message naming the store, the command, the property and what to do; one it
 * does not need is ignored. A store that does not answer does not stop startup: the one Redis
 * that holds the locks is logged as a warning that says what follows, a Redlock node at INFO.
 * Each probe is harmless: {@code EVALSHA} of an unknown script, {@code PUBLISH} to a channel
 * nobody reads, {@code WAIT 0 0}, {@code TIME}.
 */
final class LockStoreCommandCheck implements SmartInitializingSingleton {

	private static final Log logger = LogFactory.getLog(LockStoreCommandCheck.class);

	private static final String NO_SCRIPT_SHA = "0000000000000000000000000000000000000000";

	private final Map<String, RedisConnectionFactory> stores;

	private final DistlockProperties properties;

	/**
	 * Check the commands of the Redis stores that hold the locks.
	 * @param stores each store's connection factory, by the name that says which one it is in a
	 * message, such as {@code the Redis that holds the locks}
	 * @param properties the properties that decide which commands are needed
	 */
	LockStoreCommandCheck(Map<String, RedisConnectionFactory> stores, DistlockProperties properties) {
		this.stores = stores;
		this.properties = properties;
	}

	@Override
	public void afterSingletonsInstantiated() {
		Map<String, CompletableFuture<Boolean>> checks = StoreProbes.run(this.stores, (store, connectionFactory) -> {
			try (RedisConnection connection = connectionFactory.getConnection()) {
				check(store, connection);
				return true;
			}
		});
		checks.forEach((store, checked) -> {
			if (checked.isDone() && checked.isCompletedExceptionally()) {
				try {
					checked.join();
				}
				catch (CompletionException ex) {
					if (ex.getCause() instanceof LockConfigurationException refused) {
						throw refused;
					}
				}
			}
		});
		checks.forEach((store, checked) -> {
			if (!checked.isDone() || checked.isCompletedExceptionally()) {
				// The store may be down at startup; the registry reports that at first use and in
				// health, so a failed check does not stop the application.
				if (this.stores.size() > 1) {
					logger.info("Distributed locks: could not check the commands of " + store + ": "
							+ StoreProbes.noAnswer(checked));
				}
				else if (!this.properties.isFailFast()) {
					// The one store that holds the locks: say what follows for the application. With
					// fail-fast, LockStoreStartupCheck stops startup instead.
					logger.warn("Distributed locks: " + store + " did not answer at startup ("
							+ StoreProbes.noAnswer(checked) + "): lock calls fail with LockAcquisitionException and "
							+ "the distlock health component reports DOWN until it answers; "
							+ "set distlock.fail-fast=true to refuse to start instead");
				}
			}
		});
	}

	private void check(String store, RedisConnection connection) {
		String refusal = refusal(() -> connection.scriptingCommands()
			.evalSha(NO_SCRIPT_SHA, ReturnType.STATUS, 0));
		if (refusal != null) {
			throw new LockConfigurationException(capitalized(store) + " refuses EVALSHA (" + refusal
					+ "): distlock runs every lock operation as a Lua script by SHA (EVALSHA, with SCRIPT LOAD) and "
					+ "cannot run without it. Use a Redis (or a plan of your provider) that allows Lua scripting");
		}
		int replicas = this.properties.getReplicaAcknowledgement().getReplicas();
		if (replicas > 0) {
			refusal = refusal(() -> LettuceWaitProbe.waitForNoReplica(connection));
			if (refusal != null) {
				throw new InvalidLockPropertyException("distlock.replica-acknowledgement.replicas", replicas,
						"requires the WAIT command, which " + store + " refuses (" + refusal
								+ "); set distlock.replica-acknowledgement.replicas=0 (grants are then not "
								+ "confirmed by replicas) or use a Redis that allows WAIT");
			}
		}
		if (this.properties.getWaitStrategy() == WaitStrategy.PUB_SUB) {
			refusal = refusal(() -> connection.publish(bytes("distlock:command-check"), bytes("")));
			if (refusal != null) {
				throw new InvalidLockPropertyException("distlock.wait-strategy", "pub-sub",
						"requires PUBLISH and SUBSCRIBE, and " + store + " refuses PUBLISH ("
								+ refusal + "); set distlock.wait-strategy=polling (waiters then retry after "
								+ "the holder's remaining lease or the retry interval) or allow pub/sub");
			}
		}
		refusal = refusal(() -> connection.serverCommands().time());
		if (refusal != null) {
			throw new LockConfigurationException(capitalized(store) + " refuses TIME (" + refusal
					+ "): the acquire scripts mint fencing tokens from the server's clock (redis.call('time')) "
					+ "and read locks compare expiries with it. Use a Redis that allows TIME");
		}
	}

	/**
	 * Run a probe; return why the server refused the command (unknown, renamed, disabled or not
	 * permitted), or {@code null} if it ran or failed for another reason: a missing script is the
	 * expected answer of the EVALSHA probe, and any other failure says the command exists (the
	 * registry reports an unreachable store at first use and in health).
	 */
	private static String refusal(Runnable probe) {
		try {
			probe.run();
			return null;
		}
		catch (RuntimeException ex) {
			String refused = CommandRefusal.of(ex);
			if (refused != null) {
				return refused;
			}
			logger.debug("Distributed locks: a command probe failed without refusing the command", ex);
			return null;
		}
	}

	private static String capitalized(String store) {
		return Character.toUpperCase(store.charAt(0)) + store.substring(1);
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	/**
	 * {@code WAIT 0 0} with an integer reply: Spring Data has no {@code WAIT} and its generic
	 * {@code execute} would decode the reply as bytes. Replica acknowledgement is Lettuce-only
	 * (the engine sends {@code WAIT} through Lettuce), so other drivers are not probed.
	 */
	private static final class LettuceWaitProbe {

		static void waitForNoReplica(RedisConnection connection) {
			if (ClassUtils.isPresent("io.lettuce.core.output.IntegerOutput", LockStoreCommandCheck.class.getClassLoader())
					&& connection instanceof LettuceConnection lettuce) {
				lettuce.execute("WAIT", new IntegerOutput<>(ByteArrayCodec.INSTANCE), bytes("0"), bytes("0"));
			}
		}

	}

}

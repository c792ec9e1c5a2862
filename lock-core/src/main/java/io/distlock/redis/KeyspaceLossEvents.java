package io.distlock.redis;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Properties;
import java.util.function.Consumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.listener.PatternTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

import io.distlock.core.LockConfigurationException;

/**
 * Hears from Redis the moment a lock key is deleted, expires or is evicted (keyspace
 * notifications of the {@code del}, {@code expired} and {@code evicted} events), so that a holder
 * learns of an administrator's {@code DEL} or an early expiry in milliseconds instead of at its
 * next renewal. An event is only a suspicion: the registry confirms it against Redis before it
 * declares a loss, since the event may be an earlier holder's release that arrives after the key
 * was granted again.
 * <p>
 * Needs the server to emit those events ({@code notify-keyspace-events} with {@code E} and
 * {@code g}, {@code x}, {@code e}, or {@code A}); checked when it starts. Not on Redis Cluster,
 * where each node emits only its own keys' events.
 */
final class KeyspaceLossEvents {

	private static final Log logger = LogFactory.getLog(KeyspaceLossEvents.class);

	/** The property that turns this on, for messages. */
	static final String PROPERTY = "distlock.loss-detection.keyspace-events";

	private static final List<String> EVENTS = List.of("del", "expired", "evicted");

	private final RedisConnectionFactory connectionFactory;

	private final String lockKeyStart;

	private RedisMessageListenerContainer container;

	KeyspaceLossEvents(RedisConnectionFactory connectionFactory, RedisLockKeys keys) {
		this.connectionFactory = connectionFactory;
		this.lockKeyStart = keys.prefix() + "{";
	}

	/**
	 * Check the server's settings and subscribe.
	 * @param suspects told the user key of every lock key (or write lock key) that vanished
	 * @throws LockConfigurationException if the server does not emit the events, or is a cluster
	 */
	void start(Consumer<String> suspects) {
		checkServer();
		RedisMessageListenerContainer candidate = new RedisMessageListenerContainer();
		candidate.setConnectionFactory(this.connectionFactory);
		// The handler only looks a key up and hands a check to the watchdog: run it inline.
		candidate.setTaskExecutor(Runnable::run);
		SimpleAsyncTaskExecutor subscriptionThread = new SimpleAsyncTaskExecutor("distlock-keyspace-");
		subscriptionThread.setDaemon(true);
		candidate.setSubscriptionExecutor(subscriptionThread);
		candidate.addMessageListener((message, pattern) -> {
			String userKey = userKey(new String(message.getBody(), StandardCharsets.UTF_8));
			if (userKey != null) {
				suspects.accept(userKey);
			}
		}, EVENTS.stream().map((event) -> new PatternTopic("__keyevent@*__:" + event)).toList());
		candidate.afterPropertiesSet();
		candidate.start();
		this.container = candidate;
	}

	void stop() {
		RedisMessageListenerContainer current = this.container;
		this.container = null;
		if (current != null) {
			try {
				current.destroy();
			}
			catch (Exception ex) {
				// Shutting down: nothing to do but say so.
				logger.debug("Could not stop the keyspace event subscription", ex);
			}
		}
	}

	/**
	 * Return the user key of a lock key or a write lock key of this registry, or {@code null} for
	 * any other Redis key.
	 */
	String userKey(String redisKey) {
		if (!redisKey.startsWith(this.lockKeyStart)) {
			return null;
		}
		if (redisKey.endsWith("}:write")) {
			return redisKey.substring(this.lockKeyStart.length(), redisKey.length() - "}:write".length());
		}
		if (redisKey.endsWith("}")) {
			return redisKey.substring(this.lockKeyStart.length(), redisKey.length() - 1);
		}
		return null;
	}

	private void checkServer() {
		String flags;
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			if (connection instanceof RedisClusterConnection) {
				throw new LockConfigurationException(PROPERTY + " is not supported on Redis Cluster: each node"
						+ " emits only its own keys' events. Turn it off; losses are found at the next renewal");
			}
			Properties config = connection.serverCommands().getConfig("notify-keyspace-events");
			flags = (config != null) ? config.getProperty("notify-keyspace-events", "") : "";
		}
		catch (LockConfigurationException ex) {
			throw ex;
		}
		catch (RuntimeException ex) {
			// Managed services often refuse CONFIG: subscribe anyway and say that nothing checked it.
			logger.warn("Could not verify that Redis emits keyspace events for " + PROPERTY
					+ " (CONFIG GET notify-keyspace-events failed: " + ex.getMessage() + "); make sure"
					+ " notify-keyspace-events includes 'Egxe', or losses are found only at the next renewal");
			return;
		}
		if (!emitsLossEvents(flags)) {
			throw new LockConfigurationException(PROPERTY + " needs Redis to emit keyevent notifications for"
					+ " del, expired and evicted, but notify-keyspace-events is '" + flags + "'. Set it to include"
					+ " 'Egxe' (CONFIG SET notify-keyspace-events Egxe, or notify-keyspace-events in redis.conf),"
					+ " or turn " + PROPERTY + " off");
		}
	}

	static boolean emitsLossEvents(String flags) {
		boolean all = flags.indexOf('A') >= 0;
		return flags.indexOf('E') >= 0 && (all || (flags.indexOf('g') >= 0 && flags.indexOf('x') >= 0
				&& flags.indexOf('e') >= 0));
	}

}

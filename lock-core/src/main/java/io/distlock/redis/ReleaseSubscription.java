package io.distlock.redis;

import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

/**
 * The one pub/sub subscription of a registry, on the release channel. Started lazily before
 * the first wait; Spring Data Redis re-subscribes after a connection loss, and the waiters'
 * retry interval covers the messages missed meanwhile.
 */
final class ReleaseSubscription {

	private static final Log logger = LogFactory.getLog(ReleaseSubscription.class);

	private final RedisConnectionFactory connectionFactory;

	private final String channel;

	/** Guarded by this; replaced only by {@link #start}, which runs on one thread at a time. */
	private RedisMessageListenerContainer container;

	/** Guarded by this. */
	private boolean closed;

	ReleaseSubscription(RedisConnectionFactory connectionFactory, byte[] channel) {
		this.connectionFactory = connectionFactory;
		this.channel = new String(channel, StandardCharsets.UTF_8);
	}

	/**
	 * Subscribe, delivering each released key to the consumer on the driver's I/O thread.
	 * Called under the registry's listen lock.
	 * @return whether the subscription is established
	 */
	boolean start(Consumer<String> releasedKeys) {
		synchronized (this) {
			if (this.closed) {
				return false;
			}
			if (this.container != null && this.container.isListening()) {
				return true;
			}
		}
		stop();
		RedisMessageListenerContainer candidate = new RedisMessageListenerContainer();
		candidate.setConnectionFactory(this.connectionFactory);
		// The handler only wakes a waiting thread: run it inline rather than on a new thread
		// per message (the container's default).
		candidate.setTaskExecutor(Runnable::run);
		// Only drivers with blocking subscriptions (Jedis) use this thread.
		SimpleAsyncTaskExecutor subscriptionThread = new SimpleAsyncTaskExecutor("distlock-subscription-");
		subscriptionThread.setDaemon(true);
		candidate.setSubscriptionExecutor(subscriptionThread);
		candidate.addMessageListener(
				(message, pattern) -> releasedKeys.accept(new String(message.getBody(), StandardCharsets.UTF_8)),
				new ChannelTopic(this.channel));
		try {
			candidate.afterPropertiesSet();
			candidate.start();
		}
		catch (RuntimeException ex) {
			// Degraded path: waiters keep polling at the retry interval and subscribing is tried
			// again on a later wait.
			logger.warn("Could not subscribe to lock release channel '" + this.channel
					+ "'; waiters poll until it succeeds", ex);
			destroy(candidate);
			return false;
		}
		synchronized (this) {
			if (!this.closed) {
				this.container = candidate;
				return candidate.isListening();
			}
		}
		// Closed while it subscribed (the subscription is made on a thread of its own): close()
		// could not reach this one.
		destroy(candidate);
		return false;
	}

	/**
	 * Stop the subscription, if any; a later {@link #start} may subscribe again.
	 */
	void stop() {
		RedisMessageListenerContainer current;
		synchronized (this) {
			current = this.container;
			this.container = null;
		}
		if (current != null) {
			destroy(current);
		}
	}

	/**
	 * Stop the subscription for good, also one being made right now, which ends itself once made.
	 */
	void close() {
		synchronized (this) {
			this.closed = true;
		}
		stop();
	}

	private static void destroy(RedisMessageListenerContainer container) {
		try {
			container.destroy();
		}
		catch (Exception ex) {
			// Shutting down a subscription that may never have worked: nothing to do but say so.
			logger.debug("Could not stop lock release subscription", ex);
		}
	}

}

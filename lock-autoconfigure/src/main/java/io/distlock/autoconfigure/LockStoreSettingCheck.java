package io.distlock.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * A startup check of one server setting of every Redis that holds the locks (the application's,
 * or every Redlock node), read in parallel and within {@link StoreProbes#TIMEOUT}. A store whose
 * setting puts held locks at risk is logged as a warning, or refuses startup when the check's
 * property is {@code strict}. A store that cannot be read (down, or {@code CONFIG} disabled, as
 * on managed services) is logged once at INFO, or refuses startup under {@code strict} when
 * fewer stores were read than the locks need: the one Redis, or a Redlock quorum, so that one
 * Redlock node down does not stop startup.
 *
 * @param <T> the setting read from a store
 */
abstract class LockStoreSettingCheck<T> implements SmartInitializingSingleton {

	private final Log logger = LogFactory.getLog(getClass());

	private final Map<String, RedisConnectionFactory> stores;

	private final int needed;

	private final String property;

	private final DistlockProperties.StoreCheck mode;

	private final String setting;

	private final String command;

	/**
	 * Check the stores that hold the locks.
	 * @param stores each store's connection factory, by the name that says which one it is in a
	 * message, such as {@code the Redis that holds the locks}
	 * @param needed how many stores must be read for the strict check to pass: 1 for one Redis,
	 * the quorum for Redlock
	 * @param property the property that sets the check's mode, named in messages
	 * @param mode what to do when a store's setting puts locks at risk
	 * @param setting the setting, named in messages, such as {@code the eviction policy}
	 * @param command the command that reads it, such as {@code CONFIG GET maxmemory*}
	 */
	LockStoreSettingCheck(Map<String, RedisConnectionFactory> stores, int needed, String property,
			DistlockProperties.StoreCheck mode, String setting, String command) {
		this.stores = stores;
		this.needed = needed;
		this.property = property;
		this.mode = mode;
		this.setting = setting;
		this.command = command;
	}

	/**
	 * Read the setting from one store.
	 * @param connectionFactory the store's connections
	 * @return the setting
	 * @throws RuntimeException the driver's exception if the store refuses or fails
	 */
	abstract T read(RedisConnectionFactory connectionFactory);

	/**
	 * Say how a store's setting puts held locks at risk and what to do about it.
	 * @param store the store's name
	 * @param setting what the store answered
	 * @return the risk, or {@code null} when the setting is safe
	 */
	abstract @Nullable String risk(String store, T setting);

	@Override
	public void afterSingletonsInstantiated() {
		if (this.mode == DistlockProperties.StoreCheck.OFF) {
			return;
		}
		Map<String, CompletableFuture<T>> reads = StoreProbes.run(this.stores,
				(store, connectionFactory) -> read(connectionFactory));
		List<String> unread = new ArrayList<>();
		reads.forEach((store, read) -> {
			if (read.isDone() && !read.isCompletedExceptionally()) {
				check(store, read.join());
			}
			else {
				unread.add(store + " (" + StoreProbes.noAnswer(read) + ")");
			}
		});
		if (unread.isEmpty()) {
			return;
		}
		String reason = "could not read " + this.setting + " (" + this.command + ") of " + String.join(", ", unread);
		if (this.mode == DistlockProperties.StoreCheck.STRICT && this.stores.size() - unread.size() < this.needed) {
			throw new InvalidLockPropertyException(this.property, "strict", "requires reading " + this.setting
					+ ", but " + reason + ". Use 'warn' where CONFIG is not available");
		}
		this.logger.info("Distributed locks: " + reason);
	}

	private void check(String store, T setting) {
		String risk = risk(store, setting);
		if (risk == null) {
			return;
		}
		if (this.mode == DistlockProperties.StoreCheck.STRICT) {
			throw new InvalidLockPropertyException(this.property, "strict", "refuses to start: " + risk);
		}
		this.logger.warn("Distributed locks: " + risk + ", or set " + this.property + "=strict to refuse to start");
	}

}

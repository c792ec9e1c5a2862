package io.distlock.benchmark;

import java.util.UUID;
import java.util.concurrent.locks.LockSupport;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * The floor: the least a correct Redis lock does. {@code SET key token NX PX 30000} and a Lua
 * compare-and-delete, over one multiplexed Lettuce connection, retrying every 100 µs when taken.
 * No renewal, no reentrancy, no notification, no fencing.
 */
final class FloorLock implements Contender {

	static final String NAME = "floor (SET NX + Lua)";


	private static final String RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then "
			+ "return redis.call('del', KEYS[1]) end return 0";

	private final RedisClient client;

	private final StatefulRedisConnection<String, String> connection;

	private final RedisCommands<String, String> redis;

	private final String releaseSha;

	FloorLock(int port) {
		this.client = RedisClient.create("redis://127.0.0.1:" + port);
		this.connection = this.client.connect();
		this.redis = this.connection.sync();
		this.releaseSha = this.redis.scriptLoad(RELEASE);
	}

	@Override
	public String name() {
		return NAME;
	}

	@Override
	public void locked(String key, Runnable section) {
		String token = UUID.randomUUID().toString();
		while (!"OK".equals(this.redis.set(key, token, SetArgs.Builder.nx().px(30_000)))) {
			LockSupport.parkNanos(100_000);
		}
		try {
			section.run();
		}
		finally {
			this.redis.evalsha(this.releaseSha, ScriptOutputType.INTEGER, new String[] { key }, token);
		}
	}

	@Override
	public void close() {
		this.connection.close();
		this.client.shutdown();
	}

}

package io.distlock.redis;

import org.springframework.data.redis.connection.ReturnType;

/**
 * The three Lua scripts of the Redis lock store. Each runs atomically on the server, so the
 * compare and the change it guards can never be split by another client.
 */
final class RedisLockScripts {

	/**
	 * Take the lock if free and mint its fencing token in the same step.
	 * <p>
	 * The token is {@code max(server time in microseconds, last token + 1)}: it grows across
	 * expiry, holder crashes, an administrator's {@code DEL} and even a restart without
	 * persistence (the server clock moved on), while the last token is kept only for the fence
	 * retention time instead of forever. If taken, mark the key as awaited for the caller's
	 * remaining wait (so a release publishes) and return the holder's remaining TTL.
	 * <p>
	 * KEYS: lock, fence, waiting. ARGV: owner, lease ms, fence retention ms, wait ms.
	 * Returns {1, token} or {0, holder pttl}.
	 */
	static final LuaScript ACQUIRE = new LuaScript("acquire", """
			if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
			  local now = redis.call('time')
			  local token = tonumber(now[1]) * 1000000 + tonumber(now[2])
			  local last = tonumber(redis.call('get', KEYS[2]))
			  if last and token <= last then
			    token = last + 1
			  end
			  redis.call('set', KEYS[2], string.format('%.0f', token), 'PX', ARGV[3])
			  return {1, token}
			end
			local wait = tonumber(ARGV[4])
			if wait > 0 and redis.call('pttl', KEYS[3]) < wait then
			  redis.call('set', KEYS[3], '1', 'PX', wait)
			end
			return {0, redis.call('pttl', KEYS[1])}
			""", ReturnType.MULTI);

	/**
	 * Delete the lock only if the caller still owns it, and publish the release only when some
	 * process waits for it.
	 * <p>
	 * KEYS: lock, waiting. ARGV: owner, channel, user key. Returns 1 if released, 0 if the lock
	 * was no longer the caller's.
	 */
	static final LuaScript RELEASE = new LuaScript("release", """
			if redis.call('get', KEYS[1]) == ARGV[1] then
			  redis.call('del', KEYS[1])
			  if redis.call('exists', KEYS[2]) == 1 then
			    redis.call('publish', ARGV[2], ARGV[3])
			  end
			  return 1
			end
			return 0
			""", ReturnType.INTEGER);

	/**
	 * Extend every listed lock that its owner still holds; never re-create one.
	 * <p>
	 * KEYS: locks (one hash slot). ARGV: lease ms, then one owner per key. Returns one 1 or 0 per
	 * key.
	 */
	static final LuaScript RENEW = new LuaScript("renew", """
			local renewed = {}
			for i = 1, #KEYS do
			  if redis.call('get', KEYS[i]) == ARGV[i + 1] then
			    redis.call('pexpire', KEYS[i], ARGV[1])
			    renewed[i] = 1
			  else
			    renewed[i] = 0
			  end
			end
			return renewed
			""", ReturnType.MULTI);

	private RedisLockScripts() {
	}

}

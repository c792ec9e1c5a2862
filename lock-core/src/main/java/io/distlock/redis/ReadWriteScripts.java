package io.distlock.redis;

import org.springframework.data.redis.connection.ReturnType;

/**
 * The Lua scripts of a read/write lock: one write key, and a readers set whose members are scored
 * with the server time their lease ends. The write lock is released, renewed and checked as an
 * exclusive lock ({@link ExclusiveScripts}).
 */
final class ReadWriteScripts {

	/**
	 * Take the write lock: only when no writer holds it and no reader's lease is still running.
	 * A writer that will wait marks itself, which holds back new readers; a writer that gets the
	 * lock clears the mark.
	 * <p>
	 * KEYS: write, readers, fence, waiting, writer-waiting. ARGV: owner, lease ms, fence retention
	 * ms, wait ms. Returns the token, or {@code -2 - ms until the lock may free} (ms -1 when
	 * unknown).
	 */
	static final LuaScript WRITE_ACQUIRE = new LuaScript("write-acquire", LockTokens.MINT + """
			local now = redis.call('time')
			local nowMs = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
			redis.call('zremrangebyscore', KEYS[2], '-inf', nowMs)
			if redis.call('exists', KEYS[1]) == 0 and redis.call('zcard', KEYS[2]) == 0 then
			  redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2])
			  redis.call('del', KEYS[5])
			  return mint(now, KEYS[3], ARGV[3])
			end
			local wait = tonumber(ARGV[4])
			if wait > 0 then
			  if redis.call('pttl', KEYS[5]) < wait then
			    redis.call('set', KEYS[5], '1', 'PX', wait)
			  end
			  if redis.call('pttl', KEYS[4]) < wait then
			    redis.call('set', KEYS[4], '1', 'PX', wait)
			  end
			end
			local ttl = redis.call('pttl', KEYS[1])
			if ttl < 0 then
			  local last = redis.call('zrange', KEYS[2], -1, -1, 'WITHSCORES')
			  ttl = last[2] and math.max(0, tonumber(last[2]) - nowMs) or -1
			end
			return -2 - ttl
			""", ReturnType.INTEGER);

	/**
	 * Take a read lock: only when no writer holds it or waits for it, or when the writer that
	 * holds it is the caller itself (a downgrade: the caller's write lock is ARGV[5]). Each
	 * reader is a member of the readers set, scored with the server time its lease ends.
	 * <p>
	 * KEYS: write, readers, fence, waiting, writer-waiting. ARGV: owner, lease ms, fence
	 * retention ms, wait ms, the owner of the caller's own write lock or ''. Returns the token, or
	 * {@code -2 - ms until the writer's lease ends}, or until a waiting writer's mark ends when
	 * only the mark holds readers back (ms -1 when unknown).
	 */
	static final LuaScript READ_ACQUIRE = new LuaScript("read-acquire", LockTokens.MINT + """
			local now = redis.call('time')
			local nowMs = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
			redis.call('zremrangebyscore', KEYS[2], '-inf', nowMs)
			local downgrade = ARGV[5] ~= '' and redis.call('get', KEYS[1]) == ARGV[5]
			if downgrade or (redis.call('exists', KEYS[1]) == 0 and redis.call('exists', KEYS[5]) == 0) then
			  local lease = tonumber(ARGV[2])
			  redis.call('zadd', KEYS[2], nowMs + lease, ARGV[1])
			  if redis.call('pttl', KEYS[2]) < lease then
			    redis.call('pexpire', KEYS[2], lease)
			  end
			  return mint(now, KEYS[3], ARGV[3])
			end
			local wait = tonumber(ARGV[4])
			if wait > 0 and redis.call('pttl', KEYS[4]) < wait then
			  redis.call('set', KEYS[4], '1', 'PX', wait)
			end
			local ttl = redis.call('pttl', KEYS[1])
			if ttl < 0 then
			  ttl = redis.call('pttl', KEYS[5])
			end
			if ttl < 0 then
			  ttl = -1
			end
			return -2 - ttl
			""", ReturnType.INTEGER);

	/**
	 * Release a read lock if the caller's lease in the readers set has not expired, and publish
	 * the release when some process waits for it (never with an empty channel).
	 * <p>
	 * KEYS: readers, waiting. ARGV: owner, channel, user key. Returns 1 if released.
	 */
	static final LuaScript READ_RELEASE = new LuaScript("read-release", """
			local now = redis.call('time')
			local nowMs = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
			local expiry = tonumber(redis.call('zscore', KEYS[1], ARGV[1]))
			if not expiry then
			  return 0
			end
			redis.call('zrem', KEYS[1], ARGV[1])
			if expiry < nowMs then
			  return 0
			end
			if ARGV[2] ~= '' and redis.call('exists', KEYS[2]) == 1 then
			  redis.call('publish', ARGV[2], ARGV[3])
			end
			return 1
			""", ReturnType.INTEGER);

	/**
	 * Extend every listed read lock whose lease is still running.
	 * <p>
	 * KEYS: readers sets (one hash slot). ARGV: lease ms, then one owner per key. Returns one 1
	 * or 0 per key.
	 */
	static final LuaScript READ_RENEW = new LuaScript("read-renew", """
			local now = redis.call('time')
			local nowMs = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
			local lease = tonumber(ARGV[1])
			local renewed = {}
			for i = 1, #KEYS do
			  local expiry = tonumber(redis.call('zscore', KEYS[i], ARGV[i + 1]))
			  if expiry and expiry >= nowMs then
			    redis.call('zadd', KEYS[i], 'XX', nowMs + lease, ARGV[i + 1])
			    if redis.call('pttl', KEYS[i]) < lease then
			      redis.call('pexpire', KEYS[i], lease)
			    end
			    renewed[i] = 1
			  else
			    renewed[i] = 0
			  end
			end
			return renewed
			""", ReturnType.MULTI);

	private ReadWriteScripts() {
	}

}

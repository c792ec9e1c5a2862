package io.distlock.redis;

import org.springframework.data.redis.connection.ReturnType;

/**
 * The Lua scripts of a fair lock, served in arrival order through a queue of waiters kept beside
 * the lock. Renewed and checked as an exclusive lock ({@link ExclusiveScripts}).
 */
final class FairScripts {

	/**
	 * Take a fair lock: waiters are served in arrival order. Expired places (a waiter that died
	 * or gave up without leaving) are dropped from the head first; the lock goes to the caller
	 * only if it is free and the queue is empty or starts with the caller. A waiter that will
	 * wait joins the queue, or refreshes its place, for its wait hint.
	 * <p>
	 * KEYS: lock, fence, waiting, queue, queue deadlines. ARGV: owner, lease ms, fence retention
	 * ms, wait ms. Returns the token, or {@code -2 - holder pttl}, the pttl counted as -1 when the
	 * lock is free but it is another waiter's turn.
	 */
	static final LuaScript FAIR_ACQUIRE = new LuaScript("fair-acquire", LockTokens.MINT + """
			local now = redis.call('time')
			local nowMs = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
			local head = redis.call('lindex', KEYS[4], 0)
			while head do
			  local deadline = tonumber(redis.call('zscore', KEYS[5], head))
			  if deadline and deadline >= nowMs then
			    break
			  end
			  redis.call('lpop', KEYS[4])
			  redis.call('zrem', KEYS[5], head)
			  head = redis.call('lindex', KEYS[4], 0)
			end
			if redis.call('exists', KEYS[1]) == 0 and ((not head) or head == ARGV[1]) then
			  redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2])
			  if head == ARGV[1] then
			    redis.call('lpop', KEYS[4])
			    redis.call('zrem', KEYS[5], ARGV[1])
			  end
			  return mint(now, KEYS[2], ARGV[3])
			end
			local wait = tonumber(ARGV[4])
			if wait > 0 then
			  if not redis.call('zscore', KEYS[5], ARGV[1]) then
			    redis.call('rpush', KEYS[4], ARGV[1])
			  end
			  redis.call('zadd', KEYS[5], nowMs + wait, ARGV[1])
			  for i = 3, 5 do
			    if redis.call('pttl', KEYS[i]) < wait then
			      if i == 3 then
			        redis.call('set', KEYS[3], '1', 'PX', wait)
			      else
			        redis.call('pexpire', KEYS[i], wait)
			      end
			    end
			  end
			end
			local ttl = redis.call('pttl', KEYS[1])
			if ttl < 0 then
			  ttl = -1
			end
			return -2 - ttl
			""", ReturnType.INTEGER);

	/**
	 * Release a fair lock if the caller holds it, and leave the queue in any case (a waiter that
	 * gives up calls it too).
	 * <p>
	 * KEYS: lock, waiting, queue, queue deadlines. ARGV: owner, channel, user key. Returns 1 if
	 * the lock was the caller's.
	 */
	static final LuaScript FAIR_RELEASE = new LuaScript("fair-release", ExclusiveScripts.RELEASE_OWNED + """
			redis.call('lrem', KEYS[3], 0, ARGV[1])
			redis.call('zrem', KEYS[4], ARGV[1])
			return math.min(release_owned(KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[3]), 1)
			""", ReturnType.INTEGER);

	private FairScripts() {
	}

}

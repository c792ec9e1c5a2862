package io.distlock.redis;

import org.springframework.data.redis.connection.ReturnType;

/**
 * The Lua scripts of the Redis lock store. Each runs atomically on the server, so the
 * compare and the change it guards can never be split by another client.
 * <p>
 * The acquire scripts and the checkpoint ({@link #KEEP_UNLESS_AWAITED}), which run once per
 * grant, answer with one integer, not a table: a two-element table returned by a script cost
 * Redis 6.2 about 4 µs more per call than an integer (measured apart, pipelined, on the server's
 * own CPU time), as much as everything else an uncontended acquire does. A grant's fencing token
 * is always positive ({@link #isToken(long)}); an acquire that found the lock taken answers
 * {@code -2 - ttl} ({@link #holderTtl(long)} turns it back into the holder's remaining time in
 * milliseconds, -1 when unknown), which is never positive.
 */
final class RedisLockScripts {

	/**
	 * The fencing token of a new grant, in one place for every acquire script:
	 * {@code max(server time in microseconds, last token + 1)}, kept in the fence key for the
	 * retention time. Lua numbers are doubles, exact for integers below 2^53 (about 285 years of
	 * microseconds); {@code %.0f} writes the token without an exponent.
	 */
	private static final String MINT = """
			local function mint(now, fenceKey, retentionMillis)
			  local token = tonumber(now[1]) * 1000000 + tonumber(now[2])
			  local last = tonumber(redis.call('get', fenceKey))
			  if last and token <= last then
			    token = last + 1
			  end
			  redis.call('set', fenceKey, string.format('%.0f', token), 'PX', retentionMillis)
			  return token
			end
			""";

	/**
	 * Raise the fence record to a token handed out locally, so that every later token is larger;
	 * {@code '0'} means none. In one place for both scripts that end a run of local handoffs.
	 */
	private static final String RAISE_FENCE = """
			local function raise_fence(fenceKey, token, retentionMillis)
			  if token ~= '0' then
			    local last = tonumber(redis.call('get', fenceKey))
			    if (not last) or last < tonumber(token) then
			      redis.call('set', fenceKey, token, 'PX', retentionMillis)
			    end
			  end
			end
			""";

	/**
	 * Delete a lock only if the owner still holds it, and publish the release only when some
	 * process waits for it: 0 if it was no longer the owner's, 1 if released, 2 if released and
	 * awaited. An empty channel publishes nothing (waiters poll, and the server may refuse
	 * {@code PUBLISH}). In one place for every script that releases an exclusive, fair or write
	 * lock.
	 */
	private static final String RELEASE_OWNED = """
			local function release_owned(lockKey, waitingKey, owner, channel, userKey)
			  if redis.call('get', lockKey) ~= owner then
			    return 0
			  end
			  redis.call('del', lockKey)
			  if redis.call('exists', waitingKey) == 1 then
			    if channel ~= '' then
			      redis.call('publish', channel, userKey)
			    end
			    return 2
			  end
			  return 1
			end
			""";

	/**
	 * The body of an exclusive acquire, in one place for {@link #ACQUIRE} and
	 * {@link #ACQUIRE_AFTER_RESTART_DELAY}: take the lock if free and mint its token; otherwise
	 * mark the key as awaited for the caller's wait and answer {@code -2 - holder pttl}.
	 */
	private static final String TAKE = """
			if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
			  return mint(redis.call('time'), KEYS[2], ARGV[3])
			end
			local wait = tonumber(ARGV[4])
			if wait > 0 and redis.call('pttl', KEYS[3]) < wait then
			  redis.call('set', KEYS[3], '1', 'PX', wait)
			end
			return -2 - redis.call('pttl', KEYS[1])
			""";

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
	 * Returns the token, or {@code -2 - holder pttl}.
	 */
	static final LuaScript ACQUIRE = new LuaScript("acquire", MINT + TAKE, ReturnType.INTEGER);

	/**
	 * {@link #ACQUIRE} on a Redlock node that must sit out a restart delay: a node that started
	 * less than the delay ago grants nothing, whatever it restarted with (no persistence, an RDB
	 * snapshot, an append-only file missing its last second), as it may have lost locks that are
	 * still held through the other nodes until the longest lease has run out. A refusal answers
	 * {@code -2 - time left}, as a lock taken for that long would. The server's uptime is read
	 * with {@code INFO server} in whole seconds, the difference of two clock readings rounded
	 * down, so it may be up to a second more than the real one: a second is taken off, and the
	 * node sits out up to two seconds longer, never shorter.
	 * <p>
	 * KEYS: lock, fence, waiting. ARGV: owner, lease ms, fence retention ms, wait ms, restart
	 * delay ms. Returns the token, or {@code -2 - holder pttl} (or the time left).
	 */
	static final LuaScript ACQUIRE_AFTER_RESTART_DELAY = new LuaScript("acquire-after-restart-delay", MINT + """
			local uptime = tonumber(string.match(redis.call('info', 'server'), 'uptime_in_seconds:(%d+)'))
			local left = tonumber(ARGV[5]) - (uptime - 1) * 1000
			if left > 0 then
			  return -2 - left
			end
			""" + TAKE, ReturnType.INTEGER);

	/**
	 * Delete a lock only if the caller still owns it, and publish the release only when some
	 * process waits for it: a write lock, or an exclusive lock never handed between threads of
	 * its process (no local token to record, so the fence key is not touched).
	 * <p>
	 * KEYS: lock, waiting. ARGV: owner, channel, user key. Returns 2 if released and awaited, 1
	 * if released, 0 if the lock was no longer the caller's.
	 */
	static final LuaScript RELEASE = new LuaScript("release", RELEASE_OWNED + """
			return release_owned(KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[3])
			""", ReturnType.INTEGER);

	/**
	 * Release an exclusive lock that was handed between threads of its process: first raise the
	 * fence record to the last token handed out locally (whoever holds the lock now, so that
	 * every later token is larger), then delete the lock if the caller still owns it and publish
	 * only when some process waits for it.
	 * <p>
	 * KEYS: lock, waiting, fence. ARGV: owner, channel, user key, last local token, fence
	 * retention ms. Returns 2 if released and awaited, 1 if released, 0 if the lock was no
	 * longer the caller's.
	 */
	static final LuaScript RELEASE_EXCLUSIVE = new LuaScript("release-exclusive", RAISE_FENCE + RELEASE_OWNED + """
			raise_fence(KEYS[3], ARGV[4], ARGV[5])
			return release_owned(KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[3])
			""", ReturnType.INTEGER);

	/**
	 * At the end of a run of local handoffs: raise the fence record to the last local token as
	 * {@link #RELEASE_EXCLUSIVE} does; then, if the caller still owns the lock and nobody
	 * waits, keep it with a full lease and a new token, and otherwise release it (publishing).
	 * <p>
	 * KEYS: lock, waiting, fence. ARGV: owner, channel, user key, last local token (0 for none),
	 * fence retention ms, lease ms. Returns the new token if kept, {@link #RELEASED_AWAITED} (-2)
	 * if released and awaited, {@link #NOT_HELD} (0) if the lock was no longer the caller's.
	 */
	static final LuaScript KEEP_UNLESS_AWAITED = new LuaScript("keep-unless-awaited",
			MINT + RAISE_FENCE + RELEASE_OWNED + """
			raise_fence(KEYS[3], ARGV[4], ARGV[5])
			if redis.call('get', KEYS[1]) ~= ARGV[1] then
			  return 0
			end
			if redis.call('exists', KEYS[2]) == 1 then
			  return -release_owned(KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[3])
			end
			redis.call('pexpire', KEYS[1], ARGV[6])
			return mint(redis.call('time'), KEYS[3], ARGV[5])
			""", ReturnType.INTEGER);

	/**
	 * Keep an exclusive lock that was handed between threads of its process until its holder's
	 * {@code holdAtLeast}: raise the fence record to the last token handed out locally as
	 * {@link #RELEASE_EXCLUSIVE} does, then extend the lock to the given time if the caller
	 * still owns it.
	 * <p>
	 * KEYS: lock, fence. ARGV: owner, last local token, fence retention ms, keep ms. Returns 1 if
	 * kept, 0 if the lock was no longer the caller's.
	 */
	static final LuaScript KEEP_EXCLUSIVE = new LuaScript("keep-exclusive", RAISE_FENCE + """
			raise_fence(KEYS[2], ARGV[2], ARGV[3])
			if redis.call('get', KEYS[1]) == ARGV[1] then
			  redis.call('pexpire', KEYS[1], ARGV[4])
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
	static final LuaScript FAIR_ACQUIRE = new LuaScript("fair-acquire", MINT + """
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
	static final LuaScript FAIR_RELEASE = new LuaScript("fair-release", RELEASE_OWNED + """
			redis.call('lrem', KEYS[3], 0, ARGV[1])
			redis.call('zrem', KEYS[4], ARGV[1])
			return math.min(release_owned(KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[3]), 1)
			""", ReturnType.INTEGER);

	/**
	 * Take the write lock: only when no writer holds it and no reader's lease is still running.
	 * A writer that will wait marks itself, which holds back new readers; a writer that gets the
	 * lock clears the mark.
	 * <p>
	 * KEYS: write, readers, fence, waiting, writer-waiting. ARGV: owner, lease ms, fence retention
	 * ms, wait ms. Returns the token, or {@code -2 - ms until the lock may free} (ms -1 when
	 * unknown).
	 */
	static final LuaScript WRITE_ACQUIRE = new LuaScript("write-acquire", MINT + """
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
	static final LuaScript READ_ACQUIRE = new LuaScript("read-acquire", MINT + """
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

	/**
	 * Extend every listed lock its owner holds, and re-create a missing one (a Redlock node that
	 * restarted empty); never touch a lock another owner holds.
	 * <p>
	 * KEYS: locks. ARGV: lease ms, then one owner per key. Returns per key 1 (extended), 2
	 * (missing, re-created) or 0 (another owner's).
	 */
	static final LuaScript RENEW_OR_RECREATE = new LuaScript("renew-or-recreate", """
			local renewed = {}
			for i = 1, #KEYS do
			  local owner = redis.call('get', KEYS[i])
			  if owner == ARGV[i + 1] then
			    redis.call('pexpire', KEYS[i], ARGV[1])
			    renewed[i] = 1
			  elseif not owner then
			    redis.call('set', KEYS[i], ARGV[i + 1], 'PX', ARGV[1])
			    renewed[i] = 2
			  else
			    renewed[i] = 0
			  end
			end
			return renewed
			""", ReturnType.MULTI);

	/**
	 * Check that a grant is still its owner's: the lock's value, or the owner's lease in a
	 * readers set, compared with the server's clock (readers are scored with it).
	 * <p>
	 * KEYS: the lock or readers set. ARGV: owner, '1' for a readers set. Returns 1 if held.
	 */
	static final LuaScript IS_HELD = new LuaScript("is-held", """
			if ARGV[2] == '1' then
			  local expiry = tonumber(redis.call('zscore', KEYS[1], ARGV[1]))
			  if not expiry then
			    return 0
			  end
			  local now = redis.call('time')
			  local nowMs = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
			  if expiry > nowMs then
			    return 1
			  end
			  return 0
			end
			if redis.call('get', KEYS[1]) == ARGV[1] then
			  return 1
			end
			return 0
			""", ReturnType.INTEGER);

	/** The checkpoint's answer when it released the lock and another process waits for it. */
	static final long RELEASED_AWAITED = -2;

	/** The checkpoint's answer when the lock was no longer the caller's. */
	static final long NOT_HELD = 0;

	/**
	 * Return whether a script's answer is a grant's fencing token (always positive) rather than
	 * the answer of an acquire that found the lock taken, or of a checkpoint that did not keep it.
	 * @param answer the script's answer
	 * @return whether it is a token
	 */
	static boolean isToken(long answer) {
		return answer > 0;
	}

	/**
	 * Return the holder's remaining time in milliseconds (-1 when unknown) from the answer of an
	 * acquire that found the lock taken: {@code -2 - ttl}, never positive.
	 * @param answer the script's answer, not a token
	 * @return the remaining time
	 */
	static long holderTtl(long answer) {
		return -2 - answer;
	}

	/** Every script, for loading ahead of use. */
	static final java.util.List<LuaScript> ALL = java.util.List.of(ACQUIRE, ACQUIRE_AFTER_RESTART_DELAY,
			RELEASE, RELEASE_EXCLUSIVE,
			KEEP_UNLESS_AWAITED, KEEP_EXCLUSIVE, RENEW, FAIR_ACQUIRE, FAIR_RELEASE,
			WRITE_ACQUIRE, READ_ACQUIRE, READ_RELEASE, READ_RENEW, RENEW_OR_RECREATE, IS_HELD);

	private RedisLockScripts() {
	}

}

package io.distlock.redis;

import java.util.List;

import org.springframework.data.redis.connection.ReturnType;

/**
 * The Lua scripts of an exclusive lock: take it, release it, renew it and check that it is held.
 * The fair and write locks are held in the same kind of key, so they are released ({@code RELEASE},
 * and the fair release around it), renewed and checked with these scripts too. Public for the
 * stores built on one node's exclusive locks, such as a Redlock node, which load them ahead of
 * use ({@link #scripts()}) and guard the acquisition ({@link #acquireGuardedBy(String, String)}).
 */
public final class ExclusiveScripts {

	/**
	 * Delete a lock only if the owner still holds it, and publish the release only when some
	 * process waits for it: 0 if it was no longer the owner's, 1 if released, 2 if released and
	 * awaited. An empty channel publishes nothing (waiters poll, and the server may refuse
	 * {@code PUBLISH}). In one place for every script that releases an exclusive, fair or write
	 * lock.
	 */
	static final String RELEASE_OWNED = """
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
	 * The body of an exclusive acquire, in one place for {@link #ACQUIRE} and every guarded
	 * acquire ({@link #acquireGuardedBy(String, String)}): take the lock if free and mint its
	 * token; otherwise mark the key as awaited for the caller's wait and answer
	 * {@code -2 - holder pttl}.
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
	static final LuaScript ACQUIRE = new LuaScript("acquire", LockTokens.MINT + TAKE, ReturnType.INTEGER);

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
	 * Check that a grant is still its owner's: the lock's value, or the owner's lease in a
	 * readers set, compared with the server's clock (readers are scored with it). One script for
	 * the held check of every kind of lock, read locks included.
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

	private static final List<LuaScript> ALL = List.of(ACQUIRE, RELEASE, RENEW, IS_HELD);

	private ExclusiveScripts() {
	}

	/**
	 * Return every script of an exclusive lock, for loading ahead of use.
	 * @return the scripts
	 */
	public static List<LuaScript> scripts() {
		return ALL;
	}

	/**
	 * Return an exclusive acquire that first runs a guard: Lua that may refuse the acquisition by
	 * returning {@code -2 - ms}, as a lock taken for that long would answer, before the lock is
	 * even looked at. KEYS and ARGV are those of {@code ACQUIRE}; the guard may read arguments
	 * after them. Compile it once, into a constant.
	 * @param name the script's name
	 * @param guard the guard's Lua
	 * @return the script
	 */
	public static LuaScript acquireGuardedBy(String name, String guard) {
		return new LuaScript(name, LockTokens.MINT + guard + TAKE, ReturnType.INTEGER);
	}

}

package io.distlock.redis;

import org.springframework.data.redis.connection.ReturnType;

/**
 * The Lua scripts that end a run of local handoffs (an exclusive lock passed between threads of
 * one process, whose tokens the engine minted): each first raises the fence record to the last
 * token handed out locally, so that every later token is larger.
 */
final class HandoffScripts {

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
	 * Release an exclusive lock that was handed between threads of its process: first raise the
	 * fence record to the last token handed out locally (whoever holds the lock now, so that
	 * every later token is larger), then delete the lock if the caller still owns it and publish
	 * only when some process waits for it.
	 * <p>
	 * KEYS: lock, waiting, fence. ARGV: owner, channel, user key, last local token, fence
	 * retention ms. Returns 2 if released and awaited, 1 if released, 0 if the lock was no
	 * longer the caller's.
	 */
	static final LuaScript RELEASE_EXCLUSIVE = new LuaScript("release-exclusive", RAISE_FENCE + ExclusiveScripts.RELEASE_OWNED + """
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
			LockTokens.MINT + RAISE_FENCE + ExclusiveScripts.RELEASE_OWNED + """
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

	/** The checkpoint's answer when it released the lock and another process waits for it. */
	static final long RELEASED_AWAITED = -2;

	/** The checkpoint's answer when the lock was no longer the caller's. */
	static final long NOT_HELD = 0;

	private HandoffScripts() {
	}

}

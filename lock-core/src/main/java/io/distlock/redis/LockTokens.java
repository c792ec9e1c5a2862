package io.distlock.redis;

import io.distlock.store.LockStore.Acquisition;

/**
 * The fencing token every acquire script mints, and the one integer an acquire script answers
 * with. Each script runs atomically on the server, so the compare and the change it guards can
 * never be split by another client.
 * <p>
 * The acquire scripts and the checkpoint (keep-unless-awaited), which run
 * once per grant, answer with one integer, not a table: a two-element table returned by a script
 * cost Redis 6.2 about 4 µs more per call than an integer (measured apart, pipelined, on the
 * server's own CPU time), as much as everything else an uncontended acquire does. A grant's
 * fencing token is always positive ({@code isToken}); an acquire that found the lock taken
 * answers {@code -2 - ttl} ({@code holderTtl} turns it back into the holder's remaining
 * time in milliseconds, -1 when unknown), which is never positive.
 */
public final class LockTokens {

	/**
	 * The fencing token of a new grant, in one place for every acquire script:
	 * {@code max(server time in microseconds, last token + 1)}, kept in the fence key for the
	 * retention time. Lua numbers are doubles, exact for integers below 2^53 (about 285 years of
	 * microseconds); {@code %.0f} writes the token without an exponent.
	 */
	static final String MINT = """
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

	/**
	 * Read the answer of an acquire script: a grant with its fencing token, or the lock taken
	 * with the holder's remaining time.
	 * @param answer the script's answer
	 * @return the acquisition it stands for
	 */
	public static Acquisition acquisition(long answer) {
		return isToken(answer) ? Acquisition.granted(answer) : Acquisition.taken(holderTtl(answer));
	}

	private LockTokens() {
	}

}

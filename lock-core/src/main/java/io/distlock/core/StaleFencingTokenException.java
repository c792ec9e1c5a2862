package io.distlock.core;

/**
 * A write was refused because the holder's fencing token is older than the one the resource
 * has already seen: another holder took the lock after this one's lease ran out (a pause, a
 * clock step, a failover) and wrote first. Thrown where the data is written, by the
 * {@code io.distlock.fencing} helpers; nothing was written, and a transaction around the write
 * rolls back, as it does for any runtime exception.
 */
public class StaleFencingTokenException extends DistributedLockException {

	private static final long serialVersionUID = 1L;

	private final String resource;

	private final long fencingToken;

	private final long currentToken;

	/**
	 * Create the exception.
	 * @param resource what the write was for: a fence name, or a table and row
	 * @param fencingToken the writer's token
	 * @param currentToken the newer token the resource holds, or {@code -1} when unknown
	 */
	public StaleFencingTokenException(String resource, long fencingToken, long currentToken) {
		super("Write to '" + resource + "' refused: fencing token " + fencingToken + " is older than "
				+ ((currentToken >= 0) ? "the resource's " + currentToken : "the resource's") + "; a newer holder "
				+ "of the lock has written since, so this holder's lease ran out before it wrote");
		this.resource = resource;
		this.fencingToken = fencingToken;
		this.currentToken = currentToken;
	}

	/**
	 * Return what the write was for.
	 * @return the fence name, or the table and row
	 */
	public String getResource() {
		return this.resource;
	}

	/**
	 * Return the refused writer's fencing token.
	 * @return the stale token
	 */
	public long getFencingToken() {
		return this.fencingToken;
	}

	/**
	 * Return the newer token the resource holds.
	 * @return the token, or {@code -1} when the store did not say
	 */
	public long getCurrentToken() {
		return this.currentToken;
	}

}

package io.distlock.benchmark.overhead;

import io.distlock.annotation.DistributedLock;

/**
 * The annotated method the benchmark calls: a SpEL key from a parameter, as in the README's
 * example, and a body that does almost nothing.
 */
public class Reservations {

	private long reserved;

	@DistributedLock(key = "'stock:' + #productId")
	public long reserve(long productId) {
		return ++this.reserved;
	}

	/**
	 * The same body, called without the annotation's proxy in front of it.
	 * @param productId the product
	 * @return how many reservations there have been
	 */
	public long reserveUnlocked(long productId) {
		return ++this.reserved;
	}

}

package io.distlock.sample.inventory.sale;

import io.distlock.sample.inventory.reservation.Strategy;

/**
 * What one flash sale did.
 *
 * @param strategy the reservation strategy
 * @param productId the product sold
 * @param buyers how many buyers tried to buy one unit each
 * @param initialStock the stock before the sale
 * @param sold the units sold (the sum of the orders)
 * @param finalStock the stock after the sale
 * @param oversold the units sold beyond the initial stock
 * @param consistent whether final stock plus units sold equals the initial stock
 * @param rejected the buyers refused (out of stock, contention)
 * @param errors the buyers whose call failed
 * @param durationMillis how long the sale took
 * @param buyersPerSecond buyers served per second
 * @param p50Millis median latency of one purchase
 * @param p90Millis 90th percentile latency of one purchase
 * @param p99Millis 99th percentile latency of one purchase
 * @param maxMillis the slowest purchase
 * @param lockAcquisitions distributed lock grants during the sale
 * @param lockTimeouts distributed lock acquisitions that timed out during the sale
 * @param lockLosses held locks lost on purpose during the sale (the "lose locks" option), 0
 * without it
 * @param staleWritesRejected writes of holders that outlived their lease refused by the database
 * (distlock's {@code distlock.fencing.rejected} counter): the fenced strategy only
 */
public record FlashSaleReport(Strategy strategy, long productId, int buyers, int initialStock, int sold, int finalStock,
		int oversold, boolean consistent, int rejected, int errors, long durationMillis, double buyersPerSecond,
		double p50Millis, double p90Millis, double p99Millis, double maxMillis, long lockAcquisitions,
		long lockTimeouts, int lockLosses, long staleWritesRejected) {

	/**
	 * Return the report as one log line.
	 * @return a summary
	 */
	public String summary() {
		return String.format(java.util.Locale.ROOT,
				"%s: %d buyers, stock %d -> sold %d, oversold %d, final stock %d, consistent %s, rejected %d, "
						+ "errors %d, %d ms (%.0f buyers/s), p50 %.1f ms, p99 %.1f ms, lock grants %d, lock timeouts %d, "
						+ "locks lost %d, stale writes rejected %d",
				this.strategy, this.buyers, this.initialStock, this.sold, this.oversold, this.finalStock, this.consistent,
				this.rejected, this.errors, this.durationMillis, this.buyersPerSecond, this.p50Millis, this.p99Millis,
				this.lockAcquisitions, this.lockTimeouts, this.lockLosses, this.staleWritesRejected);
	}

}

package io.distlock.sample.inventory.sale;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.stereotype.Component;

import io.distlock.sample.inventory.reservation.Strategy;

/**
 * The units left over time in the sales of the latest request, one series per strategy, for the
 * page to draw while the sales run. Units left is the initial stock minus the units ordered, so a
 * strategy that oversells goes below zero even when its stock column never does.
 */
@Component
public class SaleTimeline {

	private final Map<Strategy, Series> series = new LinkedHashMap<>();

	private long batch;

	/**
	 * Forget the previous request's series: a new request begins.
	 */
	public synchronized void begin() {
		this.series.clear();
		this.batch++;
	}

	synchronized void start(Strategy strategy, int initialStock) {
		this.series.put(strategy, new Series(strategy, initialStock, new ArrayList<>()));
	}

	synchronized void sample(Strategy strategy, long elapsedMillis, int unitsLeft) {
		Series strategySeries = this.series.get(strategy);
		if (strategySeries != null) {
			strategySeries.samples().add(new long[] { elapsedMillis, unitsLeft });
		}
	}

	/**
	 * Return a copy of the latest request's series.
	 * @return the snapshot
	 */
	public synchronized Snapshot snapshot() {
		List<Series> copy = this.series.values()
			.stream()
			.map((s) -> new Series(s.strategy(), s.initialStock(), List.copyOf(s.samples())))
			.toList();
		return new Snapshot(this.batch, copy);
	}

	/**
	 * The series of one request.
	 *
	 * @param batch which request, counting from 1
	 * @param series one series per strategy, in the order they ran
	 */
	public record Snapshot(long batch, List<Series> series) {
	}

	/**
	 * Units left over time for one strategy.
	 *
	 * @param strategy the strategy
	 * @param initialStock the stock on sale
	 * @param samples pairs of milliseconds since the sale began and units left
	 */
	public record Series(Strategy strategy, int initialStock, List<long[]> samples) {
	}

}

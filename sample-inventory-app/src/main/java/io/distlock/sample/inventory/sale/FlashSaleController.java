package io.distlock.sample.inventory.sale;

import java.util.ArrayList;
import java.util.List;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

import io.distlock.sample.inventory.reservation.Strategy;

/**
 * Flash sales over HTTP: {@code POST /api/flash-sales} with
 * {@code {"strategy":"LOCK","buyers":200,"stock":50}}; strategy {@code ALL} runs the four safe
 * strategies one after another, and a comma-separated list such as {@code ALL,UNGUARDED} runs
 * each in turn; with {@code "loseLocks":true} one buyer in 10 pauses past its lease and loses its
 * lock ({@link io.distlock.sample.inventory.reservation.HolderPauses}). {@code GET /api/flash-sales/timeline} gives the units left over time.
 */
@RestController
public class FlashSaleController {

	private static final int MAX_BUYERS = 5_000;

	private final FlashSale flashSale;

	private final SaleTimeline timeline;

	public FlashSaleController(FlashSale flashSale, SaleTimeline timeline) {
		this.flashSale = flashSale;
		this.timeline = timeline;
	}

	@PostMapping("/api/flash-sales")
	public List<FlashSaleReport> run(@RequestBody SaleRequest request) throws InterruptedException {
		if (request.buyers() < 1 || request.buyers() > MAX_BUYERS || request.stock() < 0) {
			throw new ResponseStatusException(HttpStatus.BAD_REQUEST,
					"buyers must be between 1 and " + MAX_BUYERS + " and stock at least 0");
		}
		List<Strategy> strategies = strategies(request.strategy());
		this.timeline.begin();
		List<FlashSaleReport> reports = new ArrayList<>();
		for (Strategy strategy : strategies) {
			reports.add(this.flashSale.run(strategy, request.buyers(), request.stock(),
					Boolean.TRUE.equals(request.loseLocks())));
		}
		return reports;
	}

	/**
	 * The units left over time in the latest request's sales, for the page's chart; it polls
	 * this while a sale runs.
	 * @return one series per strategy
	 */
	@GetMapping("/api/flash-sales/timeline")
	public SaleTimeline.Snapshot timeline() {
		return this.timeline.snapshot();
	}

	private static List<Strategy> strategies(String names) {
		if (names == null) {
			throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "No strategy");
		}
		List<Strategy> strategies = new ArrayList<>();
		for (String name : names.split(",")) {
			if ("ALL".equalsIgnoreCase(name.strip())) {
				strategies.addAll(Strategy.SAFE);
			}
			else {
				strategies.add(strategy(name.strip()));
			}
		}
		return strategies;
	}

	private static Strategy strategy(String name) {
		try {
			return Strategy.valueOf(name.toUpperCase(java.util.Locale.ROOT));
		}
		catch (IllegalArgumentException | NullPointerException ex) {
			throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "Unknown strategy '" + name + "'");
		}
	}

	/**
	 * A flash sale to run.
	 *
	 * @param strategy a strategy name, or ALL
	 * @param buyers how many buyers
	 * @param stock the units on sale
	 * @param loseLocks whether holders pause past their lease and lose their lock during the sale;
	 * optional, default no
	 */
	public record SaleRequest(String strategy, int buyers, int stock, Boolean loseLocks) {
	}

}

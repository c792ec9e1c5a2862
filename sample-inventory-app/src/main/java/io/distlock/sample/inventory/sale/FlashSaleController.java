package io.distlock.sample.inventory.sale;

import java.util.ArrayList;
import java.util.List;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

import io.distlock.sample.inventory.reservation.Strategy;

/**
 * Flash sales over HTTP: {@code POST /api/flash-sales} with
 * {@code {"strategy":"LOCK","buyers":200,"stock":50}}; strategy {@code ALL} runs the four safe
 * strategies one after another.
 */
@RestController
public class FlashSaleController {

	private static final int MAX_BUYERS = 5_000;

	private final FlashSale flashSale;

	public FlashSaleController(FlashSale flashSale) {
		this.flashSale = flashSale;
	}

	@PostMapping("/api/flash-sales")
	public List<FlashSaleReport> run(@RequestBody SaleRequest request) throws InterruptedException {
		if (request.buyers() < 1 || request.buyers() > MAX_BUYERS || request.stock() < 0) {
			throw new ResponseStatusException(HttpStatus.BAD_REQUEST,
					"buyers must be between 1 and " + MAX_BUYERS + " and stock at least 0");
		}
		List<Strategy> strategies = "ALL".equalsIgnoreCase(request.strategy()) ? Strategy.SAFE
				: List.of(strategy(request.strategy()));
		List<FlashSaleReport> reports = new ArrayList<>();
		for (Strategy strategy : strategies) {
			reports.add(this.flashSale.run(strategy, request.buyers(), request.stock()));
		}
		return reports;
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
	 */
	public record SaleRequest(String strategy, int buyers, int stock) {
	}

}

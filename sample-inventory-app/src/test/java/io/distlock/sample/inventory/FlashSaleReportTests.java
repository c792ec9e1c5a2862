package io.distlock.sample.inventory;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.context.ConfigurableApplicationContext;

import io.distlock.sample.inventory.reservation.Strategy;
import io.distlock.sample.inventory.sale.FlashSale;
import io.distlock.sample.inventory.sale.FlashSaleReport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs the flash sale of the README on one instance: 200 buyers, stock 50, every strategy,
 * interleaved (A B C D E, three rounds) after one warm-up round, and writes the medians to
 * {@code target/flash-sale-report.md}. The safe strategies never oversell; the unguarded one does.
 */
@Timeout(300)
class FlashSaleReportTests {

	private static final int ROUNDS = 3;

	@Test
	void writesTheReadmeReport() throws Exception {
		List<Strategy> strategies = new ArrayList<>(Strategy.SAFE);
		strategies.add(Strategy.UNGUARDED);
		Map<Strategy, List<FlashSaleReport>> runs = new EnumMap<>(Strategy.class);
		try (ConfigurableApplicationContext app = InventoryServers.start(false)) {
			FlashSale sale = app.getBean(FlashSale.class);
			for (Strategy strategy : strategies) {
				sale.run(strategy, 200, 50);
			}
			for (int round = 0; round < ROUNDS; round++) {
				for (Strategy strategy : strategies) {
					runs.computeIfAbsent(strategy, (s) -> new ArrayList<>()).add(sale.run(strategy, 200, 50));
				}
			}
		}
		StringBuilder table = new StringBuilder(
				"| strategy | sold | oversold | final stock | rejected | time (ms) | buyers/s | p50 (ms) | p99 (ms) | lock grants |\n"
						+ "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
		for (Strategy strategy : strategies) {
			List<FlashSaleReport> reports = runs.get(strategy);
			FlashSaleReport typical = reports.stream()
				.sorted(Comparator.comparingLong(FlashSaleReport::durationMillis))
				.toList()
				.get(reports.size() / 2);
			table.append(String.format(Locale.ROOT, "| %s | %d | %d | %d | %d | %.0f | %.0f | %.1f | %.1f | %d |%n",
					strategy, typical.sold(), typical.oversold(), typical.finalStock(), typical.rejected(),
					median(reports, FlashSaleReport::durationMillis), median(reports, FlashSaleReport::buyersPerSecond),
					median(reports, FlashSaleReport::p50Millis), median(reports, FlashSaleReport::p99Millis),
					typical.lockAcquisitions()));
			for (FlashSaleReport report : reports) {
				if (strategy == Strategy.UNGUARDED) {
					assertThat(report.oversold()).as("the negative control oversells").isPositive();
				}
				else {
					assertThat(report.oversold()).as(strategy + " oversold").isZero();
					assertThat(report.sold()).as(strategy + " sold").isEqualTo(50);
					assertThat(report.consistent()).as(strategy + " consistent").isTrue();
				}
			}
		}
		Path output = Path.of("target", "flash-sale-report.md");
		Files.writeString(output, table.toString());
		System.out.println(table);
	}

	private static double median(List<FlashSaleReport> reports, ToDoubleFunction<FlashSaleReport> value) {
		double[] values = reports.stream().mapToDouble(value).sorted().toArray();
		return values[values.length / 2];
	}

}

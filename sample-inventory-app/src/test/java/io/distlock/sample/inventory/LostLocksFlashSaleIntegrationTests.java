package io.distlock.sample.inventory;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.context.ConfigurableApplicationContext;

import io.distlock.sample.inventory.reservation.Strategy;
import io.distlock.sample.inventory.sale.FlashSale;
import io.distlock.sample.inventory.sale.FlashSaleReport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The page's "lose locks" sale on one instance: one buyer in 10 pauses and loses its lock while
 * the next buyer takes it. The fenced strategy (the lock and {@code JdbcFencing}, no
 * {@code stock >=} guard) sells exactly the stock and reports the stale writes the database
 * refused, from distlock's {@code distlock.fencing.rejected} counter; the lock alone, under the
 * same pauses, oversells (the negative control).
 */
@Timeout(180)
class LostLocksFlashSaleIntegrationTests {

	private static final int BUYERS = 200;

	private static final int STOCK = 50;

	private static ConfigurableApplicationContext app;

	@BeforeAll
	static void start() {
		app = InventoryServers.start(false, "inventory.think-time=1ms");
	}

	@AfterAll
	static void stop() {
		app.close();
	}

	@Test
	void theFencedSaleRefusesStaleWritesAndNeverOversells() throws Exception {
		FlashSaleReport report = app.getBean(FlashSale.class).run(Strategy.FENCED, BUYERS, STOCK, true);
		assertThat(report.lockLosses()).as("locks lost on purpose").isPositive();
		assertThat(report.staleWritesRejected()).as("stale writes rejected").isPositive();
		assertThat(report.sold()).as("units sold").isEqualTo(STOCK);
		assertThat(report.oversold()).as("units oversold").isZero();
		assertThat(report.finalStock()).as("final stock").isZero();
		assertThat(report.consistent()).as("final stock + sold = stock").isTrue();
		assertThat(report.errors()).as("failed purchases").isZero();
	}

	@Test
	void negativeControlTheLockAloneOversellsWhenLocksAreLost() throws Exception {
		FlashSaleReport report = app.getBean(FlashSale.class).run(Strategy.LOCK_ONLY, BUYERS, STOCK, true);
		assertThat(report.lockLosses()).as("locks lost on purpose").isPositive();
		assertThat(report.consistent()).as("final stock %d + sold %d = stock %d", report.finalStock(), report.sold(),
				STOCK).isFalse();
		assertThat(report.staleWritesRejected()).as("stale writes rejected without fencing").isZero();
	}

}

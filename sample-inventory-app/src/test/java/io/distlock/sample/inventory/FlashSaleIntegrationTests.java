package io.distlock.sample.inventory;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.context.ConfigurableApplicationContext;

import io.distlock.sample.inventory.reservation.Strategy;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * 200 buyers on two application instances (one PostgreSQL, one Redis) compete for 50 units:
 * every safe strategy sells exactly 50, leaves stock 0 and never shows negative stock while the
 * sale runs; the unguarded read-check-write oversells, which proves the checks can see it.
 */
@Timeout(180)
class FlashSaleIntegrationTests {

	private static final int BUYERS = 200;

	private static final int STOCK = 50;

	private static ConfigurableApplicationContext first;

	private static ConfigurableApplicationContext second;

	@BeforeAll
	static void startTwoInstances() {
		first = InventoryServers.start(false, "inventory.think-time=1ms");
		second = InventoryServers.start(false, "inventory.think-time=1ms");
	}

	@AfterAll
	static void stopInstances() {
		second.close();
		first.close();
	}

	@ParameterizedTest
	@EnumSource(names = { "LOCK", "GUARD", "OPTIMISTIC", "FENCED" })
	void neverOversellsAcrossTwoInstances(Strategy strategy) throws Exception {
		TwoInstanceSale.Result sale = sell(strategy);
		assertThat(sale.sold()).as("units sold").isEqualTo(STOCK);
		assertThat(sale.orders()).as("orders").isEqualTo(STOCK);
		assertThat(sale.accepted()).as("accepted reservations").isEqualTo(STOCK);
		assertThat(sale.finalStock()).as("final stock").isZero();
		assertThat(sale.lowestStockSeen()).as("lowest stock seen while selling").isGreaterThanOrEqualTo(0);
		assertThat(sale.errors()).as("failed calls").isZero();
	}

	@Test
	void negativeControlUnguardedReadCheckWriteOversells() throws Exception {
		TwoInstanceSale.Result sale = sell(Strategy.UNGUARDED);
		assertThat(sale.sold()).as("units sold").isGreaterThan(STOCK);
		assertThat(sale.finalStock() + sale.sold()).as("stock + sold").isNotEqualTo(STOCK);
	}

	private TwoInstanceSale.Result sell(Strategy strategy) throws Exception {
		return new TwoInstanceSale(first, second).sell(strategy, STOCK, BUYERS, 64);
	}

}

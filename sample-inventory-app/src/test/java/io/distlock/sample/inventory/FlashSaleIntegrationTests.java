package io.distlock.sample.inventory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.context.ConfigurableApplicationContext;

import io.distlock.sample.inventory.reservation.Strategy;
import io.distlock.test.redis.RedisServer;

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

	@RegisterExtension
	static final InventoryInstances instances = new InventoryInstances("inventory.think-time=1ms");

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
	void theLockAloneKeepsBuyersApartTheGuardNeverRefusesOne() throws Exception {
		// The guard is still in place under LOCK, so "never oversells" cannot tell a working lock
		// from a broken one. A working lock serialises read-check-write: every buyer that saw
		// stock left also finds it at the guarded write, so the guard refuses no one.
		TwoInstanceSale.Result sale = sell(Strategy.LOCK);
		assertThat(sale.sold()).as("units sold").isEqualTo(STOCK);
		assertThat(sale.guardRefusals()).as("buyers the database guard had to refuse").isZero();
	}

	@Test
	void negativeControlALockThatDoesNotExcludeLeavesItToTheGuard() throws Exception {
		// The same sale on two instances whose locks live on different Redis servers: each lock
		// works, but not across the instances, so two buyers at a time read-check-write. The guard
		// still prevents the oversell, and its refusals are what the test above counts. A refusal
		// needs the two lanes out of step when the last unit goes (5 ms of work between read and
		// write makes that likely); up to five sales, the first with a refusal ends it.
		try (RedisServer separate = RedisServer.start();
				ConfigurableApplicationContext here = InventoryServers.start(false, "inventory.think-time=5ms");
				ConfigurableApplicationContext elsewhere = InventoryServers.start(false, "inventory.think-time=5ms",
						"spring.data.redis.port=" + separate.port())) {
			int sales = 0;
			TwoInstanceSale.Result sale;
			do {
				sale = new TwoInstanceSale(here, elsewhere).sell(Strategy.LOCK, STOCK, BUYERS, 64);
				sales++;
				assertThat(sale.sold()).as("units sold").isEqualTo(STOCK);
			}
			while (sale.guardRefusals() == 0 && sales < 5);
			assertThat(sale.guardRefusals()).as("buyers the database guard had to refuse, in %d sales", sales)
				.isPositive();
		}
	}

	@Test
	void negativeControlUnguardedReadCheckWriteOversells() throws Exception {
		TwoInstanceSale.Result sale = sell(Strategy.UNGUARDED);
		assertThat(sale.sold()).as("units sold").isGreaterThan(STOCK);
		assertThat(sale.finalStock() + sale.sold()).as("stock + sold").isNotEqualTo(STOCK);
	}

	private TwoInstanceSale.Result sell(Strategy strategy) throws Exception {
		return instances.sale().sell(strategy, STOCK, BUYERS, 64);
	}

}

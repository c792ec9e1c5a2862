package io.distlock.sample.inventory;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.context.ConfigurableApplicationContext;

import io.distlock.core.LockRegistry;
import io.distlock.jdbc.PostgresLockRegistry;
import io.distlock.sample.inventory.reservation.Strategy;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The flash sale with the locks in PostgreSQL: one property ({@code distlock.store=jdbc}) moves
 * them from Redis to the lease table the sample's migrations create. 200 buyers on two instances
 * compete for 50 units: exactly 50 sold, none oversold, and under the lock alone the database
 * guard refuses nobody (the negative controls of {@link FlashSaleIntegrationTests} show those
 * checks seeing a broken lock).
 */
class JdbcStoreFlashSaleIntegrationTests {

	private static final int BUYERS = 200;

	private static final int STOCK = 50;

	private static ConfigurableApplicationContext first;

	private static ConfigurableApplicationContext second;

	@BeforeAll
	static void startTwoInstances() {
		first = InventoryServers.start(false, "inventory.think-time=1ms", "distlock.store=jdbc");
		second = InventoryServers.start(false, "inventory.think-time=1ms", "distlock.store=jdbc");
	}

	@AfterAll
	static void stopInstances() {
		second.close();
		first.close();
	}

	@ParameterizedTest
	@EnumSource(names = { "LOCK", "FENCED" })
	void neverOversellsAcrossTwoInstancesOnThePostgresStore(Strategy strategy) throws Exception {
		assertThat(first.getBean(LockRegistry.class)).isInstanceOf(PostgresLockRegistry.class);
		TwoInstanceSale.Result sale = new TwoInstanceSale(first, second).sell(strategy, STOCK, BUYERS, 64);
		assertThat(sale.sold()).as("units sold").isEqualTo(STOCK);
		assertThat(sale.orders()).as("orders").isEqualTo(STOCK);
		assertThat(sale.finalStock()).as("final stock").isZero();
		assertThat(sale.lowestStockSeen()).as("lowest stock seen while selling").isGreaterThanOrEqualTo(0);
		assertThat(sale.errors()).as("failed calls").isZero();
		if (strategy == Strategy.LOCK) {
			assertThat(sale.guardRefusals()).as("buyers the database guard had to refuse").isZero();
		}
	}

}

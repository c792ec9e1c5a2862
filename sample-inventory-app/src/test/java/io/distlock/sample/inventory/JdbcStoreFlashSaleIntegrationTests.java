package io.distlock.sample.inventory;

import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

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

	@RegisterExtension
	static final InventoryInstances instances = new InventoryInstances("inventory.think-time=1ms", "distlock.store=jdbc");

	@ParameterizedTest
	@EnumSource(names = { "LOCK", "FENCED" })
	void neverOversellsAcrossTwoInstancesOnThePostgresStore(Strategy strategy) throws Exception {
		assertThat(instances.first().getBean(LockRegistry.class)).isInstanceOf(PostgresLockRegistry.class);
		TwoInstanceSale.Result sale = instances.sale().sell(strategy, STOCK, BUYERS, 64);
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

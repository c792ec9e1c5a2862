package io.distlock.sample.inventory;

import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.distlock.sample.inventory.reservation.Strategy;
import io.distlock.test.report.FaultReport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * T32 of the reliability catalogue: while a nemesis keeps making the stock locks expire early (a
 * lost lock, as after a pause, a clock jump or a failover), the lock with the database guard
 * never oversells; the lock without the guard does, which is the negative control that shows
 * the checks can see it.
 */
@Tag("fault")
@Timeout(300)
class OversellFaultIntegrationTests {

	private static final int STOCK = 100;

	private static final int ORDERS = 300;

	@RegisterExtension
	static final InventoryInstances instances = new InventoryInstances("inventory.think-time=2ms");

	@Test
	void theGuardedLockNeverOversellsWhileLocksAreLost() throws Exception {
		Sale sale = sellUnderFaults(Strategy.LOCK);
		assertThat(sale.lowestStock).isGreaterThanOrEqualTo(0);
		assertThat(sale.finalStock + sale.sold).isEqualTo(STOCK);
		assertThat(sale.sold).isEqualTo(sale.orders).isLessThanOrEqualTo(STOCK);
		// A loss between the pre-commit confirmation and the release (the commit and the release
		// round trip, against a nemesis that strikes every 10 ms) is reported to its caller after
		// the commit: the one gap between orders and answers. Runs measured 7 to 14 of 100, and 2
		// since a release handed to a local waiter no longer asks Redis; without the confirmation
		// the whole transaction would be in that window, so bound it at a quarter.
		int reportedAfterCommit = sale.orders - sale.accepted;
		assertThat(reportedAfterCommit).isBetween(0, sale.orders / 4);
		FaultReport.row("T32", "lock keys forced to expire every 10 ms during a sale of " + STOCK + " to " + ORDERS
				+ " buyers on 2 instances", "the guard refuses what a lost lock lets through; a loss seen before commit rolls back",
				"sold " + sale.sold + ", oversold 0, stock never below 0; " + sale.nemesisExpiries + " lock expiries, "
						+ sale.guardRefusals + " buyers refused by the guard; " + reportedAfterCommit
						+ " committed orders whose caller was told of a loss after the commit (asserted: at most a quarter)");
	}

	@Test
	void negativeControlTheLockWithoutTheGuardOversells() throws Exception {
		// An oversell needs an expiry inside a holder's read-to-write window: most sales show one,
		// some (about one in four here) do not. Up to five sales; the first that oversells ends it.
		int sales = 0;
		Sale sale;
		do {
			sale = sellUnderFaults(Strategy.LOCK_ONLY);
			sales++;
		}
		while (!oversold(sale) && sales < 5);
		assertThat(oversold(sale)).as("an oversell or a lost update in %d sales: sold %d, final stock %d", sales,
				sale.sold, sale.finalStock)
			.isTrue();
		FaultReport.row("T32 control", "the same faults, lock alone (no guard, no transaction)", "oversells",
				"sold " + sale.sold + " of " + STOCK + ", final stock " + sale.finalStock + " (sale " + sales
						+ " of at most 5)");
	}

	private static boolean oversold(Sale sale) {
		return sale.sold > STOCK || sale.finalStock + sale.sold != STOCK;
	}

	private Sale sellUnderFaults(Strategy strategy) throws Exception {
		AtomicInteger expiries = new AtomicInteger();
		TwoInstanceSale.Result result = instances.sale().sell(strategy, STOCK, ORDERS, 16,
				(lockKey) -> {
					// The holder's key vanishes under it: its lock is lost, and another buyer gets in.
					if ("1".equals(InventoryServers.redis().command("PEXPIRE", lockKey, "1").substring(1))) {
						expiries.incrementAndGet();
					}
				});
		return new Sale(result.sold(), result.orders(), result.accepted(), result.finalStock(),
				result.lowestStockSeen(), expiries.get(), result.guardRefusals());
	}

	private record Sale(int sold, int orders, int accepted, int finalStock, int lowestStock, int nemesisExpiries,
			int guardRefusals) {
	}

}

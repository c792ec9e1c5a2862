package io.distlock.sample.inventory;

import org.junit.jupiter.api.Test;
import org.testcontainers.junit.jupiter.Testcontainers;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;

import io.distlock.sample.inventory.reservation.Strategy;
import io.distlock.sample.inventory.sale.FlashSale;
import io.distlock.sample.inventory.sale.FlashSaleReport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample on containers instead of embedded servers; skipped where no Docker engine runs.
 */
@Testcontainers(disabledWithoutDocker = true)
@SpringBootTest(properties = { "inventory.embedded-servers=false", "inventory.reconcile.cron=-" })
@Import(ContainersConfiguration.class)
class ContainersIntegrationTests {

	@Test
	void sellsOnContainers(@org.springframework.beans.factory.annotation.Autowired FlashSale flashSale)
			throws InterruptedException {
		FlashSaleReport report = flashSale.run(Strategy.LOCK, 50, 10);
		assertThat(report.sold()).isEqualTo(10);
		assertThat(report.oversold()).isZero();
	}

}

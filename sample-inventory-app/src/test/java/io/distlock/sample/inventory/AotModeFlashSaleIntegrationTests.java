package io.distlock.sample.inventory;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;

import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.MediaType;
import org.springframework.web.client.RestClient;

import io.distlock.sample.inventory.reservation.Strategy;
import io.distlock.sample.inventory.sale.FlashSaleReport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample as Spring AOT processed it at build time ({@code spring-boot:process-aot}, bound in
 * this module's POM), started in a JVM of its own with {@code -Dspring.aot.enabled=true} on the
 * tests' PostgreSQL and Redis, runs the flash sale of its page (200 buyers, stock 50) over HTTP.
 * Under AOT the bean factory comes from generated code, so this catches a distlock bean, advisor
 * or post-processor that AOT cannot reproduce: the annotation must still reach every locked
 * method, and nothing may be oversold. Each sale is also counted in the database, not only in the
 * application's own report.
 */
@Timeout(240)
class AotModeFlashSaleIntegrationTests {

	private static final int BUYERS = 200;

	private static final int STOCK = 50;

	private static InventoryProcess app;

	private static RestClient http;

	@BeforeAll
	static void startInAotMode() throws Exception {
		// The application's own start-up line says whether it runs AOT-processed: keep it at INFO.
		app = InventoryProcess.startAot(Path.of("target", "aot-inventory.log"),
				InventoryServers.arguments("logging.level.io.distlock.sample.inventory.InventoryApplication=INFO"));
		http = RestClient.create(app.url());
	}

	@AfterAll
	static void stop() throws Exception {
		if (app != null) {
			app.stop();
		}
	}

	@Test
	void startsFromTheAotGeneratedInitializer() throws Exception {
		// Boot says "AOT-processed" only when it loaded InventoryApplication__ApplicationContextInitializer
		// (and fails to start in AOT mode without it).
		assertThat(app.output()).contains("Starting AOT-processed InventoryApplication");
		assertThat(Files.exists(Path.of(System.getProperty(InventoryProcess.CLASSES_PROPERTY), "io", "distlock",
				"sample", "inventory", "InventoryApplication__ApplicationContextInitializer.class")))
			.isTrue();
	}

	@Test
	void everySafeStrategySellsExactlyTheStock() throws Exception {
		List<FlashSaleReport> reports = sale("ALL");
		assertThat(reports).extracting(FlashSaleReport::strategy).containsExactlyElementsOf(Strategy.SAFE);
		for (FlashSaleReport report : reports) {
			assertThat(report.sold()).as("%s units sold", report.strategy()).isEqualTo(STOCK);
			assertThat(report.oversold()).as("%s units oversold", report.strategy()).isZero();
			assertThat(report.finalStock()).as("%s final stock", report.strategy()).isZero();
			assertThat(report.errors()).as("%s failed purchases", report.strategy()).isZero();
			assertSoldInDatabase(report.productId(), STOCK, 0);
		}
	}

	@Test
	void theLockAloneKeepsBuyersApartUnderAot() throws Exception {
		// LOCK_ONLY has no database guard and no transaction: only @DistributedLock keeps its
		// read-check-write from overselling, as the unguarded control below shows it would.
		FlashSaleReport report = sale(Strategy.LOCK_ONLY.name()).get(0);
		assertThat(report.sold()).as("units sold").isEqualTo(STOCK);
		assertThat(report.finalStock()).as("final stock").isZero();
		assertThat(report.errors()).as("failed purchases").isZero();
		assertThat(report.lockAcquisitions()).as("grants of lock '%s'", Strategy.LOCK_ONLY.lockName())
			.isEqualTo(BUYERS);
		assertSoldInDatabase(report.productId(), STOCK, 0);
	}

	@Test
	void negativeControlUnguardedReadCheckWriteOversellsUnderAot() throws Exception {
		FlashSaleReport report = sale(Strategy.UNGUARDED.name()).get(0);
		assertThat(report.sold()).as("units sold").isGreaterThan(STOCK);
		assertThat(report.lockAcquisitions()).as("lock grants").isZero();
	}

	@Test
	void theLocksEndpointListsEveryAnnotatedMethod() {
		Map<String, Object> locks = http.get()
			.uri("/actuator/locks")
			.retrieve()
			.body(new ParameterizedTypeReference<Map<String, Object>>() {
			});
		assertThat(locks).isNotNull().containsKey("definitions");
		assertThat(locks.get("definitions")).asInstanceOf(InstanceOfAssertFactories.list(Map.class))
			.extracting((definition) -> definition.get("name"))
			.containsExactlyInAnyOrder("LockedReservation.reserve", "LockOnlyReservation.reserve",
					"FencedReservation.reserve", "ReconciliationJob.reconcile");
	}

	private static List<FlashSaleReport> sale(String strategy) {
		List<FlashSaleReport> reports = http.post()
			.uri("/api/flash-sales")
			.contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("strategy", strategy, "buyers", BUYERS, "stock", STOCK))
			.retrieve()
			.body(new ParameterizedTypeReference<List<FlashSaleReport>>() {
			});
		assertThat(reports).as("reports of sale '%s'", strategy).isNotEmpty();
		return reports;
	}

	private static void assertSoldInDatabase(long productId, int sold, int stock) throws SQLException {
		try (Connection connection = InventoryServers.postgres().getPostgresDatabase().getConnection();
				PreparedStatement query = connection.prepareStatement("select p.stock, "
						+ "(select coalesce(sum(o.quantity), 0) from purchase_order o where o.product_id = p.id) "
						+ "from product p where p.id = ?")) {
			query.setLong(1, productId);
			try (ResultSet row = query.executeQuery()) {
				assertThat(row.next()).as("product %d exists", productId).isTrue();
				assertThat(row.getInt(2)).as("units in the orders of product %d", productId).isEqualTo(sold);
				assertThat(row.getInt(1)).as("stock of product %d", productId).isEqualTo(stock);
			}
		}
	}

}

package io.distlock.sample.inventory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

import org.springframework.context.ConfigurableApplicationContext;

import io.distlock.sample.inventory.reservation.Strategy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A person's view of the sample: headless Chromium opens the page, runs a flash sale with every
 * safe strategy and the unguarded control, and checks what the page draws: the units left over
 * time, one series per strategy (the control's below zero, the others not), buyer latency by
 * percentile for each strategy, and the sales' table. It saves a screenshot to
 * {@code target/screenshots/inventory-flash-sale.png}.
 * <p>
 * The browser comes from the environment ({@link BrowserBinaries}). Without one the test is
 * skipped, saying why, except when {@code CI=true}: there a missing browser fails it, so that CI
 * never passes without having looked at the page.
 */
@Timeout(180)
class InventoryPageBrowserTests {

	private static final Path SCREENSHOT = Path.of("target", "screenshots", "inventory-flash-sale.png");

	private static final Path LOST_LOCKS_SCREENSHOT = Path.of("target", "screenshots", "inventory-lost-locks.png");

	@Test
	void aPersonRunsAFlashSaleAndSeesTheControlOversellOnTheChart() throws IOException {
		runSaleInThePage("ALL,UNGUARDED", Holders.KEEP_THEIR_LOCKS, (browser) -> {
			new WebDriverWait(browser, Duration.ofSeconds(120))
				.until((driver) -> !driver.findElements(By.cssSelector("#products tbody tr")).isEmpty());

			List<WebElement> reports = browser.findElements(By.cssSelector("#reports tr.report"));
			assertThat(reports).hasSize(5);
			for (WebElement report : reports) {
				List<WebElement> cells = report.findElements(By.tagName("td"));
				String strategy = cells.get(0).getText();
				if (!strategy.equals(Strategy.UNGUARDED.name())) {
					assertThat(cells.get(1).getText()).as("sold by " + strategy).isEqualTo("50");
					assertThat(cells.get(2).getText()).as("oversold by " + strategy).isEqualTo("0");
				}
			}

			JavascriptExecutor page = (JavascriptExecutor) browser;
			Map<String, Object> stock = chart(page, "stock");
			assertThat(series(stock)).as("series on the stock chart")
				.containsOnlyKeys("LOCK", "GUARD", "OPTIMISTIC", "FENCED", "UNGUARDED")
				.allSatisfy((strategy, points) -> assertThat(((Number) points).intValue())
					.as("points of " + strategy).isGreaterThanOrEqualTo(2));
			Map<String, Object> lowest = map(stock.get("min"));
			assertThat(((Number) lowest.get("UNGUARDED")).intValue()).as("the control's lowest units left")
				.isNegative();
			lowest.forEach((strategy, min) -> {
				if (!strategy.equals("UNGUARDED")) {
					assertThat(((Number) min).intValue()).as("lowest units left of " + strategy).isZero();
				}
			});
			assertThat(series(chart(page, "latency"))).as("series on the latency chart")
				.containsOnlyKeys("LOCK", "GUARD", "OPTIMISTIC", "FENCED", "UNGUARDED")
				.allSatisfy((strategy, percentiles) -> assertThat((List<?>) percentiles).hasSize(4));
			assertThat(browser.findElements(By.cssSelector("#stock-chart canvas"))).hasSize(1);
			assertThat(browser.findElements(By.cssSelector("#latency-chart canvas"))).hasSize(1);
			assertThat(browser.findElement(By.id("stock-chart")).getAttribute("data-series")).isEqualTo("5");
			assertThat(browser.findElements(By.cssSelector("#held tbody tr"))).isNotEmpty();

			Files.createDirectories(SCREENSHOT.getParent());
			Files.write(SCREENSHOT, ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES));
			assertThat(Files.size(SCREENSHOT)).isPositive();
		});
	}

	@Test
	void aPersonLosesLocksDuringASaleAndSeesTheStaleWritesRejected() throws IOException {
		runSaleInThePage("FENCED,LOCK_ONLY", Holders.LOSE_THEIR_LOCKS, (browser) -> {
			Map<String, List<String>> rows = new HashMap<>();
			for (WebElement report : browser.findElements(By.cssSelector("#reports tr.report"))) {
				List<String> cells = report.findElements(By.tagName("td")).stream().map(WebElement::getText).toList();
				rows.put(cells.get(0), cells);
			}
			assertThat(rows).containsOnlyKeys("FENCED", "LOCK_ONLY");
			// Columns: strategy, sold, oversold, final stock, rejected, errors, time, p50, p99,
			// lock grants, locks lost, stale writes rejected.
			List<String> fenced = rows.get("FENCED");
			assertThat(fenced.get(1)).as("sold with fencing").isEqualTo("50");
			assertThat(fenced.get(2)).as("oversold with fencing").isEqualTo("0");
			assertThat(Integer.parseInt(fenced.get(10))).as("locks lost with fencing").isPositive();
			assertThat(Integer.parseInt(fenced.get(11))).as("stale writes rejected").isPositive();
			List<String> lockOnly = rows.get("LOCK_ONLY");
			assertThat(Integer.parseInt(lockOnly.get(10))).as("locks lost by the lock alone").isPositive();
			assertThat(Integer.parseInt(lockOnly.get(1)) + Integer.parseInt(lockOnly.get(3)))
				.as("sold + final stock of the lock alone (a lost update or an oversell)")
				.isNotEqualTo(50);
			Files.createDirectories(LOST_LOCKS_SCREENSHOT.getParent());
			Files.write(LOST_LOCKS_SCREENSHOT, ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES));
		}, "inventory.think-time=1ms");
	}

	/**
	 * Open the page of a new instance with the given properties, run a flash sale of 200 buyers
	 * for a stock of 50 with the given strategies, wait until the page says it is done, and hand
	 * the page to the checks.
	 */
	private static void runSaleInThePage(String strategies, Holders holders, PageChecks checks, String... properties)
			throws IOException {
		BrowserBinaries binaries = binaries();
		try (ConfigurableApplicationContext app = InventoryServers.start(true, properties)) {
			String url = "http://localhost:" + app.getEnvironment().getProperty("local.server.port") + "/";
			Path profile = Files.createTempDirectory("distlock-chromium-");
			WebDriver browser = browser(binaries, profile);
			try {
				browser.get(url);
				new Select(browser.findElement(By.id("strategy"))).selectByValue(strategies);
				setValue(browser.findElement(By.id("buyers")), "200");
				setValue(browser.findElement(By.id("stock")), "50");
				if (holders == Holders.LOSE_THEIR_LOCKS) {
					browser.findElement(By.id("lose-locks")).click();
				}
				browser.findElement(By.id("start")).click();
				new WebDriverWait(browser, Duration.ofSeconds(120))
					.until((driver) -> "done".equals(driver.findElement(By.id("status")).getText()));
				checks.check(browser);
			}
			finally {
				browser.quit();
			}
		}
	}

	private static BrowserBinaries binaries() {
		Optional<BrowserBinaries> binaries = BrowserBinaries.find(System.getenv());
		if (binaries.isEmpty() && "true".equalsIgnoreCase(System.getenv("CI"))) {
			throw new AssertionError("CI=true but no browser for the page's test: " + BrowserBinaries.whereLooked());
		}
		assumeTrue(binaries.isPresent(), () -> "No browser: " + BrowserBinaries.whereLooked());
		return binaries.get();
	}

	private static WebDriver browser(BrowserBinaries binaries, Path profile) {
		ChromeOptions options = new ChromeOptions();
		options.setBinary(binaries.browser().toFile());
		// As root without a sandbox, a fresh profile, and without the background traffic this
		// closed network refuses.
		options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
				"--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
				"--disable-sync", "--user-data-dir=" + profile.toAbsolutePath(), "--window-size=1400,1500");
		ChromeDriverService service = new ChromeDriverService.Builder()
			.usingDriverExecutable(binaries.driver().toFile())
			.build();
		return new ChromeDriver(service, options);
	}

	private static Map<String, Object> chart(JavascriptExecutor page, String name) {
		return map(page.executeScript("return window.distlockCharts." + name + ";"));
	}

	private static Map<String, Object> series(Map<String, Object> chart) {
		return map(chart.get("series"));
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Object> map(Object value) {
		assertThat(value).isInstanceOf(Map.class);
		return (Map<String, Object>) value;
	}

	private static void setValue(WebElement input, String value) {
		input.clear();
		input.sendKeys(value);
	}

	/** Whether the page's sale makes holders lose their locks ("lose locks" on the page). */
	private enum Holders {

		KEEP_THEIR_LOCKS, LOSE_THEIR_LOCKS

	}

	/** What a test checks on the page once its sale is done. */
	@FunctionalInterface
	private interface PageChecks {

		void check(WebDriver browser) throws IOException;

	}

}

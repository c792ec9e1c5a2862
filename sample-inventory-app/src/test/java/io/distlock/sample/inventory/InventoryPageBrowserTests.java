package io.distlock.sample.inventory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.openqa.selenium.By;
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

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A person's view of the sample: headless Chromium opens the page, starts a flash sale, waits for
 * its report and saves a screenshot to {@code target/screenshots/inventory-flash-sale.png}.
 * Skipped, saying why, on a machine without Chromium and ChromeDriver (Debian packages
 * {@code chromium} and {@code chromium-driver}).
 */
@Timeout(120)
class InventoryPageBrowserTests {

	private static final Path CHROMIUM = Path.of("/usr/bin/chromium");

	private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

	@Test
	void aPersonRunsAFlashSaleAndSeesNothingOversold() throws IOException {
		assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
				"No browser: install the Debian packages chromium and chromium-driver to run this test");
		try (ConfigurableApplicationContext app = InventoryServers.start(true)) {
			String url = "http://localhost:" + app.getEnvironment().getProperty("local.server.port") + "/";
			WebDriver browser = browser();
			try {
				browser.get(url);
				new Select(browser.findElement(By.id("strategy"))).selectByValue("ALL");
				setValue(browser.findElement(By.id("buyers")), "100");
				setValue(browser.findElement(By.id("stock")), "25");
				browser.findElement(By.id("start")).click();
				WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(60));
				wait.until((driver) -> driver.findElements(By.cssSelector("#reports tr.report")).size() == 4);
				wait.until((driver) -> !driver.findElements(By.cssSelector("#products tbody tr")).isEmpty());
				for (WebElement report : browser.findElements(By.cssSelector("#reports tr.report"))) {
					java.util.List<WebElement> cells = report.findElements(By.tagName("td"));
					assertThat(cells.get(1).getText()).as("sold by " + cells.get(0).getText()).isEqualTo("25");
					assertThat(cells.get(2).getText()).as("oversold by " + cells.get(0).getText()).isEqualTo("0");
				}
				Path screenshot = Path.of("target", "screenshots", "inventory-flash-sale.png");
				Files.createDirectories(screenshot.getParent());
				Files.write(screenshot, ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES));
				assertThat(Files.size(screenshot)).isPositive();
			}
			finally {
				browser.quit();
			}
		}
	}

	private static WebDriver browser() {
		ChromeOptions options = new ChromeOptions();
		options.setBinary(CHROMIUM.toFile());
		// As root without a sandbox, and without the background traffic this closed network refuses.
		options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
				"--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
				"--disable-sync", "--window-size=1280,1100");
		ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
			.build();
		return new ChromeDriver(service, options);
	}

	private static void setValue(WebElement input, String value) {
		input.clear();
		input.sendKeys(value);
	}

}

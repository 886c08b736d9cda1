package io.batchconsumer.spring.ui;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.stereotype.Component;

import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.testsupport.H2FileDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The ledger page in a real browser: headless Chromium (the Debian package, driven through the
 * system's chromedriver, never a downloaded one) opens {@code /actuator/batchconsumerui} of a
 * running app on an H2 file database whose listener waits on a latch at one message. The page must
 * show the batch that holds the watermark with that slice in flight, and flow control stopped by
 * the span; a {@code key} listener's message held for a key in the retry queue; and a hot key's
 * messages waiting for its {@code rate-limit-per-key}. A screenshot goes
 * to {@code target/ledger-page.png}, and to {@code docs/ledger-page.png} with
 * {@code -Ddocs.update-screenshot=true}.
 *
 * <p>Without {@code /usr/bin/chromium} and {@code /usr/bin/chromedriver} the test fails: CI
 * ({@code .ci/run}) installs them.
 */
@H2FileDatabase
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "spring.application.name=ledger-page", "batch-consumer.ui.enabled=true",
				"management.endpoints.web.exposure.include=batchconsumer,batchconsumerui",
				"batch-consumer.jdbc.queues-per-topic=1", "batch-consumer.commit.interval=200ms",
				"batch-consumer.shutdown-timeout=2s", "batch-consumer.listeners.orders.group=billing",
				"batch-consumer.listeners.orders.thread-size=4", "batch-consumer.listeners.orders.consumer-batch-size=5",
				"batch-consumer.listeners.orders.pull-batch-size=20", "batch-consumer.listeners.orders.ordering=unordered",
				"batch-consumer.listeners.orders.flow-control.max-span=60",
				"batch-consumer.listeners.payments.group=payments", "batch-consumer.listeners.payments.thread-size=4",
				"batch-consumer.listeners.held.retry.levels=1m", "batch-consumer.listeners.hot.rate-limit-per-key=1" })
@Tag("integration")
class LedgerPageBrowserTests {

	static final Path CHROMIUM = Path.of("/usr/bin/chromium");

	static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

	@TempDir
	static Path directory;

	private static WebDriver browser;

	@LocalServerPort
	private int port;

	@Autowired
	private BatchProducer producer;

	@Autowired
	private Listeners listeners;

	@BeforeAll
	static void browser() throws Exception {
		assertThat(CHROMIUM).as("chromium (apt-get install chromium; .ci/run installs it)").isExecutable();
		assertThat(CHROMEDRIVER).as("chromedriver (apt-get install chromium-driver)").isExecutable();
		System.setProperty("webdriver.chrome.driver", CHROMEDRIVER.toString());
		ChromeOptions options = new ChromeOptions();
		options.setBinary(CHROMIUM.toFile());
		options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
				"--disable-background-networking", "--disable-component-update", "--disable-sync",
				"--disable-dev-shm-usage", "--window-size=1440,1150",
				"--user-data-dir=" + Files.createTempDirectory(directory, "chromium-profile"));
		ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
			.build();
		browser = new ChromeDriver(service, options);
	}

	@AfterAll
	static void closeBrowser() {
		if (browser != null) {
			browser.quit();
		}
	}

	@Test
	void thePageShowsTheBatchThatHoldsTheWatermarkWithItsBlockedSliceInFlight() throws Exception {
		try {
			this.producer.sendBatch("orders", IntStream.range(0, 200).mapToObj((i) -> "order-" + i).toList());
			this.listeners.feedPayments(this.producer);
			this.producer.send("held", "poison", "poison-1");
			this.producer.sendBatch("hot", IntStream.range(0, 30).mapToObj((i) -> OutgoingMessage.of("hot", "hot-" + i))
				.toList());
			browser.get("http://localhost:" + this.port + "/actuator/batchconsumerui");
			// The page re-renders every second: read each element inside the wait, stale ones are retried.
			WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(20));
			wait.ignoring(StaleElementReferenceException.class);
			String holder = wait.until((driver) -> {
				WebElement found = driver.findElement(By.cssSelector("[data-listener='orders'] [data-holder='true']"));
				boolean blocked = !found.findElements(By.cssSelector("[data-state='IN_FLIGHT']")).isEmpty();
				boolean othersDone = !found.findElements(By.cssSelector("[data-state='DONE']")).isEmpty();
				return (blocked && othersDone) ? found.getText() : null;
			});
			assertThat(holder).startsWith("batch 0 · offsets 0–");
			wait.until((driver) -> driver.findElement(By.cssSelector("[data-listener='orders'] [data-holder-note]"))
				.getText()
				.matches("batch 0 \\(offsets 0–\\d+\\) holds the watermark for [1-9].*"));
			wait.until((driver) -> driver.findElement(By.cssSelector("[data-listener='orders'] [data-flow]"))
				.getText()
				.equals("stopped: span"));
			wait.until((driver) -> driver.findElement(By.cssSelector("[data-listener='orders'] [data-batches]"))
				.getText()
				.matches("(?s)[1-9][0-9,]*\\s+thread batches, [0-9,]+ whole"));
			await().atMost(Duration.ofSeconds(20)).until(this.listeners.poisoned::get);
			this.producer.send("held", "poison", "poison-2");
			wait.until((driver) -> driver.findElement(By.cssSelector("[data-listener='held'] [data-retry-holds]"))
				.getText()
				.matches("(?s)1\\s+held for 1 key\\(s\\) in the retry queue"));
			wait.until((driver) -> driver.findElement(By.cssSelector("[data-listener='hot'] [data-key-rate-holds]"))
				.getText()
				.matches("(?s)1\\s+per-key rate holds"));
			wait.until((driver) -> !driver.findElements(By.cssSelector("[data-listener='hot'] [data-state='WAITING_FOR_RATE']"))
				.isEmpty());
			// The picture once the charts have gathered some history (one point a second).
			wait.until((driver) -> chartPoints(driver, "payments") >= 12);
			assertThat(this.listeners.paymentsSeen()).isPositive();
			saveScreenshot();
		}
		finally {
			this.listeners.release();
		}
	}

	private static long chartPoints(WebDriver driver, String listener) {
		Object points = ((JavascriptExecutor) driver).executeScript("var paths = document.querySelectorAll(\"[data-listener='"
				+ listener + "'] svg path\"); return paths.length ? paths[paths.length - 1].getAttribute('d').split('L').length : 0;");
		return ((Number) points).longValue();
	}

	private static void saveScreenshot() throws Exception {
		Path shot = ((ChromeDriver) browser).getScreenshotAs(OutputType.FILE).toPath();
		// target/ always; docs/ (what docs/observability.md shows) only when asked, so a build leaves the tree clean.
		Path target = Path.of("target", "ledger-page.png");
		Files.copy(shot, target, StandardCopyOption.REPLACE_EXISTING);
		assertThat(Files.size(target)).isPositive();
		if (Boolean.getBoolean("docs.update-screenshot")) {
			Path docs = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent().resolve("docs");
			Files.copy(target, docs.resolve("ledger-page.png"), StandardCopyOption.REPLACE_EXISTING);
		}
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(Listeners.class)
	static class TestApplication {

	}

	@Component
	static class Listeners {

		private final CountDownLatch gate = new CountDownLatch(1);

		private final AtomicBoolean feeding = new AtomicBoolean(true);

		private final java.util.concurrent.atomic.AtomicInteger payments = new java.util.concurrent.atomic.AtomicInteger();

		@BatchListener(id = "orders", topics = "orders")
		void onOrders(List<String> orders) throws InterruptedException {
			if (orders.contains("order-7")) {
				this.gate.await(60, TimeUnit.SECONDS);
			}
		}

		/** Set when poison-1 failed: it went to the retry queue (its back-off is a minute). */
		final AtomicBoolean poisoned = new AtomicBoolean();

		@BatchListener(id = "held", topics = "held", ordering = "key")
		void onHeld(String payload) {
			if (payload.equals("poison-1")) {
				this.poisoned.set(true);
				throw new IllegalStateException("poisoned");
			}
		}

		@BatchListener(id = "hot", topics = "hot", ordering = "unordered")
		void onHot(String payload) {
		}

		@BatchListener(id = "payments", topics = "payments")
		void onPayments(List<String> payments) throws InterruptedException {
			Thread.sleep(5);
			this.payments.addAndGet(payments.size());
		}

		int paymentsSeen() {
			return this.payments.get();
		}

		/** A steady stream for the charts: 40 messages every 100 ms until released. */
		void feedPayments(BatchProducer producer) {
			Thread feeder = new Thread(() -> {
				while (this.feeding.get()) {
					producer.sendBatch("payments", IntStream.range(0, 40).mapToObj((i) -> "payment-" + i).toList());
					try {
						Thread.sleep(100);
					}
					catch (InterruptedException ex) {
						return;
					}
				}
			}, "payments-feeder");
			feeder.setDaemon(true);
			feeder.start();
		}

		void release() {
			this.feeding.set(false);
			this.gate.countDown();
		}

	}

}

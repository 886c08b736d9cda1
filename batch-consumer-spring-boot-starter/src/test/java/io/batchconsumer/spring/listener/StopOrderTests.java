package io.batchconsumer.spring.listener;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.stereotype.Component;

import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.core.LifecyclePhase;
import io.batchconsumer.spring.annotation.BatchListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The containers stop before the web server's graceful shutdown: while a container drains a slice
 * on close, the application still answers HTTP requests, and its health says OUT_OF_SERVICE (Spring
 * Boot's readiness refuses traffic from the start of the close) while liveness stays UP
 * (docs/listeners.md, "Stop order").
 */
@Tag("integration")
class StopOrderTests {

	@TempDir
	Path directory;

	@Test
	void whileAContainerDrainsOnCloseTheWebServerStillAnswers() throws Exception {
		ConfigurableApplicationContext context = new SpringApplicationBuilder(TestApplication.class).run(
				"--server.port=0", "--spring.application.name=stop-order", "--batch-consumer.shutdown-timeout=20s",
				"--spring.datasource.url=jdbc:h2:file:" + this.directory.resolve("db").toAbsolutePath()
						+ ";WRITE_DELAY=0;DB_CLOSE_ON_EXIT=FALSE");
		Listeners listeners = context.getBean(Listeners.class);
		BatchListenerContainerRegistry registry = context.getBean(BatchListenerContainerRegistry.class);
		int port = ((WebServerApplicationContext) context).getWebServer().getPort();
		context.getBean(BatchProducer.class).send("held", "one");
		assertThat(listeners.entered.await(20, TimeUnit.SECONDS)).as("the listener got its message").isTrue();
		Thread closer = new Thread(context::close, "stop-order-close");
		closer.start();
		// The registry's own isRunning() waits for its stop; the container's snapshot does not.
		await().atMost(Duration.ofSeconds(10))
			.until(() -> registry.getContainer("held").stats().state() == LifecyclePhase.STOPPING);
		assertThat(closer.isAlive()).as("the container is still draining the held slice").isTrue();
		HttpResponse<String> liveness = get(port, "/actuator/health/liveness");
		assertThat(liveness.statusCode()).as("served during the drain: " + liveness.body()).isEqualTo(200);
		HttpResponse<String> health = get(port, "/actuator/health");
		assertThat(health.statusCode()).as("readiness refuses traffic once the context closes").isEqualTo(503);
		assertThat(health.body()).contains("OUT_OF_SERVICE");
		listeners.release.countDown();
		closer.join(Duration.ofSeconds(30).toMillis());
		assertThat(closer.isAlive()).isFalse();
		assertThat(listeners.finished.getCount()).as("the held slice finished in the drain").isZero();
	}

	private static HttpResponse<String> get(int port, String path) throws Exception {
		return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
			.timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(Listeners.class)
	static class TestApplication {

	}

	@Component
	static class Listeners {

		final CountDownLatch entered = new CountDownLatch(1);

		final CountDownLatch release = new CountDownLatch(1);

		final CountDownLatch finished = new CountDownLatch(1);

		@BatchListener(id = "held", topics = "held")
		void onHeld(String payload) throws InterruptedException {
			this.entered.countDown();
			if (this.release.await(30, TimeUnit.SECONDS)) {
				this.finished.countDown();
			}
		}

	}

}

package io.batchconsumer.spring.jdbc;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.stereotype.Component;

import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.spring.testing.Event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Closing the application drains and commits before the {@code DataSource} closes: with a
 * commit interval far longer than the test, only the final commit on shutdown can keep the next
 * run from receiving the same events again.
 */
@Tag("integration")
class BatchConsumerRestartTests {

	@TempDir
	Path directory;

	@Test
	void closingTheApplicationCommitsWhatWasProcessedSoTheNextRunDoesNotReceiveItAgain() {
		List<Event> first = IntStream.range(0, 1000).mapToObj(Event::of).toList();
		List<Event> second = IntStream.range(1000, 1010).mapToObj(Event::of).toList();
		try (ConfigurableApplicationContext context = start()) {
			context.getBean(BatchProducer.class).sendBatch("restart", first);
			Queue<Event> received = context.getBean(RestartListener.class).received;
			await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(received).hasSize(first.size()));
		}
		try (ConfigurableApplicationContext context = start()) {
			context.getBean(BatchProducer.class).sendBatch("restart", second);
			Queue<Event> received = context.getBean(RestartListener.class).received;
			await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(received).hasSize(second.size()));
			assertThat(received).containsExactlyInAnyOrderElementsOf(second);
		}
	}

	private ConfigurableApplicationContext start() {
		return new SpringApplicationBuilder(RestartApplication.class).web(WebApplicationType.NONE)
			.properties("spring.datasource.url=jdbc:h2:file:" + this.directory.resolve("db").toAbsolutePath()
					+ ";WRITE_DELAY=0", "batch-consumer.commit.interval=1h", "batch-consumer.group=restart",
					"batch-consumer.shutdown-timeout=10s", "spring.main.banner-mode=off")
			.run();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(RestartListener.class)
	static class RestartApplication {

	}

	@Component
	static class RestartListener {

		final Queue<Event> received = new ConcurrentLinkedQueue<>();

		@BatchListener(id = "restart", topics = "restart")
		void onEvents(List<Event> events) {
			this.received.addAll(events);
		}

	}

}

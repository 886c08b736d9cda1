package io.batchconsumer.reliability;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerSnapshot;
import io.batchconsumer.core.DeadLetters;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.ReplayResult;
import io.batchconsumer.core.StoredDeadLetter;
import io.batchconsumer.core.spi.Transport;
import io.batchconsumer.kafka.KafkaTransport;
import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.spring.listener.BatchListenerContainerRegistry;
import io.batchconsumer.testsupport.SharedKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The switching guide of {@code docs/kafka.md}, followed by a test: a service that writes one row
 * per message with exactly-once processing runs on the embedded default (a SQLite file), a message it
 * dead-letters there is replayed and its queue drained, and the service restarts on an in-process
 * Kafka broker with the same database, the Kafka module and only its properties changed. Every
 * message sent before and after has exactly one row (the table has no key, so a repeat would show).
 */
@Tag("integration")
class TransportSwitchTests {

	private static final String TOPIC = "switch-invoices";

	private static final int BEFORE = 600;

	private static final int AFTER = 600;

	@TempDir
	Path directory;

	@Test
	void aServiceMovedFromTheEmbeddedDefaultToKafkaLosesNothingAndRepeatsNothing() throws Exception {
		SharedKafka kafka = SharedKafka.instance();
		kafka.createTopic(TOPIC, 4);
		String url = "jdbc:sqlite:" + this.directory.resolve("invoicing.db");

		Invoicing.poisoned = true;
		try (ConfigurableApplicationContext service = start(url, "--batch-consumer.transport=jdbc")) {
			BatchProducer producer = service.getBean(BatchProducer.class);
			producer.sendBatch(TOPIC, messages(0, BEFORE));
			producer.sendBatch(TOPIC, List.of(OutgoingMessage.of("poison", "poison")));
			JdbcTemplate jdbc = service.getBean(JdbcTemplate.class);
			await().atMost(Duration.ofSeconds(60)).until(() -> rows(jdbc) == BEFORE);
			// The guide: replay the dead letters that should be processed while still on JDBC.
			DeadLetters deadLetters = service.getBean(Transport.class).storedDeadLetters();
			List<StoredDeadLetter> stored = await().atMost(Duration.ofSeconds(30))
				.until(() -> deadLetters.list("invoicing", List.of(TOPIC), 0, 10).deadLetters(),
						(items) -> items.size() == 1);
			Invoicing.poisoned = false;
			assertThat(deadLetters.replay("invoicing", List.of(TOPIC), List.of(stored.get(0).id())))
				.extracting(ReplayResult::outcome)
				.containsExactly(ReplayResult.Outcome.REPLAYED);
			// The guide: drain, until nothing is waiting, buffered or uncommitted.
			BatchContainer container = service.getBean(BatchListenerContainerRegistry.class).getContainer("invoices");
			await().atMost(Duration.ofSeconds(60)).until(() -> rows(jdbc) == BEFORE + 1 && drained(container.stats()));
		}

		try (ConfigurableApplicationContext service = start(url, "--batch-consumer.transport=kafka",
				"--spring.kafka.bootstrap-servers=" + kafka.bootstrap())) {
			assertThat(service.getBean(Transport.class)).isInstanceOf(KafkaTransport.class);
			service.getBean(BatchProducer.class).sendBatch(TOPIC, messages(BEFORE, AFTER));
			JdbcTemplate jdbc = service.getBean(JdbcTemplate.class);
			await().atMost(Duration.ofSeconds(90)).until(() -> rows(jdbc) == BEFORE + 1 + AFTER);
			assertThat(jdbc.queryForObject("SELECT COUNT(DISTINCT id) FROM invoices", Long.class))
				.isEqualTo(BEFORE + 1 + AFTER);
			assertThat(jdbc.queryForList("SELECT DISTINCT transport FROM invoices ORDER BY transport", String.class))
				.containsExactly("jdbc", "kafka");
		}
	}

	private static ConfigurableApplicationContext start(String url, String... args) {
		String[] common = { "--spring.datasource.url=" + url, "--spring.main.web-application-type=none",
				"--batch-consumer.group=invoicing", "--batch-consumer.listeners.invoices.processing=exactly-once",
				"--batch-consumer.retry.max-attempts=1", "--batch-consumer.commit.interval=100ms" };
		String[] all = new String[common.length + args.length];
		System.arraycopy(common, 0, all, 0, common.length);
		System.arraycopy(args, 0, all, common.length, args.length);
		return new SpringApplicationBuilder(Service.class).run(all);
	}

	private static List<OutgoingMessage> messages(int from, int count) {
		return IntStream.range(from, from + count).mapToObj((i) -> OutgoingMessage.of("c" + (i % 50), "i" + i)).toList();
	}

	private static long rows(JdbcTemplate jdbc) {
		return jdbc.queryForObject("SELECT COUNT(*) FROM invoices", Long.class);
	}

	private static boolean drained(ContainerSnapshot stats) {
		return stats.backlog() == 0 && stats.commitLag() == 0;
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(Invoicing.class)
	static class Service {

	}

	/** Writes one row per invoice, in the delivery's transaction; the poison fails while poisoned. */
	@Component
	static class Invoicing {

		static volatile boolean poisoned;

		private final JdbcTemplate jdbc;

		private final String transport;

		Invoicing(JdbcTemplate jdbc, Environment environment) {
			this.jdbc = jdbc;
			this.transport = environment.getProperty("batch-consumer.transport", "jdbc");
			jdbc.execute("CREATE TABLE IF NOT EXISTS invoices (id VARCHAR(40) NOT NULL, transport VARCHAR(10) NOT NULL)");
		}

		@BatchListener(id = "invoices", topics = TOPIC)
		BatchResult onInvoices(List<String> invoices) {
			BatchResult.Builder result = BatchResult.builder();
			for (int i = 0; i < invoices.size(); i++) {
				if (poisoned && invoices.get(i).equals("poison")) {
					result.fail(i, new IllegalStateException("poisoned"));
				}
				else {
					this.jdbc.update("INSERT INTO invoices (id, transport) VALUES (?, ?)", invoices.get(i), this.transport);
				}
			}
			return result.build();
		}

	}

}

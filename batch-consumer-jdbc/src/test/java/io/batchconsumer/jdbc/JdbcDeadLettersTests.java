package io.batchconsumer.jdbc;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.DeadLetterPage;
import io.batchconsumer.core.DeadLetters;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.ReplayResult;
import io.batchconsumer.core.StoredDeadLetter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Dead letters of the dead-letter table read back, paged, and replayed to their topic, on H2 and
 * PostgreSQL; and a table of an older version gets the {@code replayed_at} column.
 */
@Tag("integration")
class JdbcDeadLettersTests {

	private static final TestDatabases databases = new TestDatabases();

	private static final List<String> TOPICS = List.of("payments");

	@TempDir
	Path dir;

	@BeforeAll
	static void startPostgres() {
		databases.postgres();
	}

	@AfterAll
	static void stopPostgres() throws Exception {
		databases.close();
	}

	@ParameterizedTest
	@EnumSource(TestDatabases.Kind.class)
	void listsShowsAndReplaysDeadLettersToTheirTopic(TestDatabases.Kind kind) throws Exception {
		JdbcSettings settings = TestDatabases.settings().withQueuesPerTopic(2);
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 4);
				JdbcTransport transport = new JdbcTransport(dataSource, settings)) {
			for (int i = 0; i < 10; i++) {
				String payload = (i % 4 == 1) ? "poison-" + i : "fine-" + i;
				transport.producer().sendBatch("payments", List.of(new OutgoingMessage("customer-" + i,
						Map.of("trace", "t-" + i), payload)));
			}
			transport.producer().sendBatch("payments", List.of(OutgoingMessage.of("binary", new byte[] { (byte) 0xff, 0 })));
			AtomicBoolean rejecting = new AtomicBoolean(true);
			Queue<String> received = new ConcurrentLinkedQueue<>();
			BatchContainer container = start(transport, rejecting, received);
			await().atMost(Duration.ofSeconds(20)).until(() -> received.size() == 7);
			DeadLetters deadLetters = transport.storedDeadLetters();
			await().atMost(Duration.ofSeconds(20)).until(() -> deadLetters.list("billing", TOPICS, 0, 10).total() == 4);

			DeadLetterPage first = deadLetters.list("billing", TOPICS, 0, 3);
			assertThat(first.total()).isEqualTo(4);
			assertThat(first.deadLetters()).hasSize(3);
			DeadLetterPage second = deadLetters.list("billing", TOPICS, 1, 3);
			assertThat(second.deadLetters()).hasSize(1);
			List<StoredDeadLetter> all = deadLetters.list("billing", TOPICS, 0, 10).deadLetters();
			assertThat(all).extracting((d) -> d.payloadText().orElse("<binary>"))
				.containsExactlyInAnyOrder("poison-1", "poison-5", "poison-9", "<binary>");
			StoredDeadLetter poison = all.stream().filter((d) -> d.payloadText().orElse("").equals("poison-5")).findFirst()
				.orElseThrow();
			assertThat(poison.key()).isEqualTo("customer-5");
			assertThat(poison.headers()).isEqualTo(Map.of("trace", "t-5"));
			assertThat(poison.attempts()).isEqualTo(1);
			assertThat(poison.errorClass()).isEqualTo(IllegalArgumentException.class.getName());
			assertThat(poison.group()).isEqualTo("billing");
			assertThat(poison.replayedAt()).isNull();
			assertThat(poison.toString()).doesNotContain("poison-5");
			assertThat(deadLetters.show("billing", TOPICS, poison.id())).get()
				.satisfies((shown) -> assertThat(shown.offset()).isEqualTo(poison.offset()));
			assertThat(deadLetters.show("other-group", TOPICS, poison.id())).isEmpty();
			assertThat(deadLetters.show("billing", List.of("other-topic"), poison.id())).isEmpty();
			assertThat(deadLetters.show("billing", TOPICS, "not-a-number")).isEmpty();
			assertThat(deadLetters.list("other-group", TOPICS, 0, 10).total()).isZero();
			assertThatIllegalArgumentException().isThrownBy(() -> deadLetters.list("billing", TOPICS, 0, 0));

			rejecting.set(false);
			List<ReplayResult> results = deadLetters.replay("billing", TOPICS, List.of(poison.id(), "987654"));
			assertThat(results).extracting(ReplayResult::outcome)
				.containsExactly(ReplayResult.Outcome.REPLAYED, ReplayResult.Outcome.NOT_FOUND);
			assertThat(results.get(0).sent().topic()).isEqualTo("payments");
			await().atMost(Duration.ofSeconds(20)).until(() -> received.contains("poison-5|t-5|customer-5"));
			assertThat(deadLetters.show("billing", TOPICS, poison.id()).orElseThrow().replayedAt()).isNotNull();
			assertThat(deadLetters.list("billing", TOPICS, 0, 10).total()).as("a replayed dead letter stays listed")
				.isEqualTo(4);
			assertThat(container.stop()).isTrue();
		}
	}

	@Test
	void aDeadLetterTableWithoutReplayedAtGetsTheColumn() throws Exception {
		JdbcSettings settings = TestDatabases.settings();
		try (HikariDataSource dataSource = databases.dataSource(TestDatabases.Kind.H2, this.dir, 2)) {
			new JdbcTransport(dataSource, settings).close();
			TestDatabases.execute(dataSource, "ALTER TABLE " + settings.tablePrefix() + "dead_letter DROP COLUMN replayed_at");
			try (JdbcTransport transport = new JdbcTransport(dataSource, settings)) {
				assertThat(TestDatabases.count(dataSource,
						"SELECT COUNT(replayed_at) FROM " + settings.tablePrefix() + "dead_letter")).isZero();
				assertThat(transport.storedDeadLetters().list("billing", TOPICS, 0, 10).total()).isZero();
			}
		}
	}

	private static BatchContainer start(JdbcTransport transport, AtomicBoolean rejecting, Queue<String> received) {
		ContainerOptions options = ContainerOptions.builder("billing").topics("payments").group("billing")
			.retryMaxAttempts(1).commitInterval(Duration.ZERO).build();
		BatchContainer container = new BatchContainer(options, transport.createSource(options), (slice) -> {
			BatchResult.Builder result = BatchResult.builder();
			for (int i = 0; i < slice.size(); i++) {
				Message<byte[]> message = slice.get(i);
				String text = new String(message.payload(), StandardCharsets.UTF_8);
				if (rejecting.get() && (text.startsWith("poison") || message.payload()[0] == (byte) 0xff)) {
					result.fail(i, new IllegalArgumentException("rejected"));
				}
				else {
					received.add(text + "|" + message.headers().get("trace") + "|" + message.key());
				}
			}
			return result.build();
		}, transport.deadLetterSink(options));
		container.start();
		return container;
	}

}

package io.batchconsumer.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

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
import static org.awaitility.Awaitility.await;

/**
 * Dead letters of {@code <topic>.DLQ} read back, paged, and replayed to the original topic on an
 * in-process broker; the replay is marked in {@code <topic>.DLQ.replayed}.
 */
@Tag("integration")
class KafkaDeadLettersTests extends SharedKafkaTransportTests {

	private static final List<String> TOPICS = List.of("refunds");

	@BeforeAll
	static void createTopics() throws Exception {
		broker.createTopic("refunds", 2);
	}

	@Test
	void listsShowsAndReplaysDeadLettersOfTheDeadLetterTopic() {
		DeadLetters deadLetters = transport.storedDeadLetters();
		assertThat(deadLetters.list("refunding", TOPICS, 0, 10).total()).as("no DLQ topic yet").isZero();
		for (int i = 0; i < 12; i++) {
			String payload = (i % 4 == 2) ? "poison-" + i : "fine-" + i;
			transport.producer().sendBatchOrThrow("refunds",
					List.of(new OutgoingMessage("customer-" + i, Map.of("trace", "t-" + i), payload)));
		}
		AtomicBoolean rejecting = new AtomicBoolean(true);
		Queue<String> received = new ConcurrentLinkedQueue<>();
		BatchContainer container = start(rejecting, received);
		await().atMost(Duration.ofSeconds(30)).until(() -> received.size() == 9);
		await().atMost(Duration.ofSeconds(30)).until(() -> deadLetters.list("refunding", TOPICS, 0, 10).total() == 3);

		DeadLetterPage first = deadLetters.list("refunding", TOPICS, 0, 2);
		assertThat(first.total()).isEqualTo(3);
		assertThat(first.deadLetters()).hasSize(2);
		assertThat(deadLetters.list("refunding", TOPICS, 1, 2).deadLetters()).hasSize(1);
		assertThat(deadLetters.list("another-group", TOPICS, 0, 10).total()).isZero();
		List<StoredDeadLetter> all = deadLetters.list("refunding", TOPICS, 0, 10).deadLetters();
		assertThat(all).extracting((d) -> d.payloadText().orElseThrow())
			.containsExactlyInAnyOrder("poison-2", "poison-6", "poison-10");
		StoredDeadLetter poison = all.stream().filter((d) -> d.payloadText().orElseThrow().equals("poison-6"))
			.findFirst().orElseThrow();
		assertThat(poison.id()).startsWith("refunds.DLQ:");
		assertThat(poison.topic()).isEqualTo("refunds");
		assertThat(poison.key()).isEqualTo("customer-6");
		assertThat(poison.headers()).isEqualTo(Map.of("trace", "t-6"));
		assertThat(poison.attempts()).isEqualTo(1);
		assertThat(poison.errorClass()).isEqualTo(IllegalArgumentException.class.getName());
		assertThat(poison.group()).isEqualTo("refunding");
		assertThat(poison.replayedAt()).isNull();
		assertThat(deadLetters.show("refunding", TOPICS, poison.id())).get()
			.satisfies((shown) -> assertThat(shown.offset()).isEqualTo(poison.offset()));
		assertThat(deadLetters.show("refunding", List.of("other"), poison.id())).isEmpty();
		assertThat(deadLetters.show("refunding", TOPICS, "refunds.DLQ:0:999")).isEmpty();
		assertThat(deadLetters.show("refunding", TOPICS, "nonsense")).isEmpty();

		rejecting.set(false);
		List<ReplayResult> results = deadLetters.replay("refunding", TOPICS, List.of(poison.id(), "refunds.DLQ:1:999"));
		assertThat(results).extracting(ReplayResult::outcome)
			.containsExactly(ReplayResult.Outcome.REPLAYED, ReplayResult.Outcome.NOT_FOUND);
		await().atMost(Duration.ofSeconds(30)).until(() -> received.contains("poison-6|t-6|customer-6|refunds|"
				+ poison.id()));
		assertThat(deadLetters.show("refunding", TOPICS, poison.id()).orElseThrow().replayedAt()).isNotNull();
		assertThat(deadLetters.list("refunding", TOPICS, 0, 10).deadLetters())
			.filteredOn((d) -> d.replayedAt() != null)
			.extracting(StoredDeadLetter::id)
			.containsExactly(poison.id());
		assertThat(container.stop()).isTrue();
	}

	private static BatchContainer start(AtomicBoolean rejecting, Queue<String> received) {
		ContainerOptions options = KafkaTransportTests.options("refunding", "refunds").group("refunding")
			.retryMaxAttempts(1).build();
		BatchContainer container = new BatchContainer(options, transport.createSource(options), (slice) -> {
			BatchResult.Builder result = BatchResult.builder();
			for (int i = 0; i < slice.size(); i++) {
				Message<byte[]> message = slice.get(i);
				String text = new String(message.payload(), StandardCharsets.UTF_8);
				if (rejecting.get() && text.startsWith("poison")) {
					result.fail(i, new IllegalArgumentException("rejected"));
				}
				else {
					received.add(text + "|" + message.headers().get("trace") + "|" + message.key() + "|"
							+ message.headers().get("bc-original-topic") + "|" + message.headers().get("bc-replayed-from"));
				}
			}
			return result.build();
		}, transport.deadLetterSink(options));
		container.start();
		return container;
	}

}

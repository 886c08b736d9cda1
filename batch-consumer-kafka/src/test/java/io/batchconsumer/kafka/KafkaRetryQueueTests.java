package io.batchconsumer.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerObserver;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.DeadLetterPage;
import io.batchconsumer.core.InvalidOptionException;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.ReplayResult;
import io.batchconsumer.core.SendResult;
import io.batchconsumer.core.StoredDeadLetter;
import io.batchconsumer.core.spi.MessageSource;
import io.batchconsumer.core.spi.RetryQueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Retries that do not hold a thread on Kafka: a record failing with a back-off above
 * {@code retry.blocking-limit} goes to {@code bc.retry.<group>.<id>}, the original partition is
 * committed to its end at once, the retries come back when due with their attempt and origin,
 * and after {@code retry.max-attempts} the record is dead-lettered.
 */
@Tag("integration")
class KafkaRetryQueueTests extends SharedKafkaTransportTests {

	@Test
	void aGroupThatMakesTheRetryTopicAnInvalidKafkaNameIsRefusedNamingTheGroup() {
		ContainerOptions.Builder retrying = KafkaTransportTests.options("refunds", "refunds-invalid")
			.ordering(Ordering.UNORDERED).retryBlockingLimit(Duration.ofMillis(100)).retryLevels("1m");
		assertThatThrownBy(() -> transport.retryQueue(retrying.group("billing team").build()))
			.isInstanceOfSatisfying(InvalidOptionException.class, (ex) -> assertThat(ex.option()).isEqualTo("group"))
			.hasMessageContaining("'bc.retry.billing team.refunds'")
			.hasMessageContaining("letters, digits");
		String longGroup = "g".repeat(240);
		assertThatThrownBy(() -> transport.retryQueue(retrying.group(longGroup).build()))
			.isInstanceOfSatisfying(InvalidOptionException.class, (ex) -> assertThat(ex.option()).isEqualTo("group"))
			.hasMessageContaining("bc.retry." + longGroup + ".refunds")
			.hasMessageContaining("257 characters");
		assertThat(transport.retryQueue(retrying.group("billing.team_1-eu").build()).topic())
			.isEqualTo("bc.retry.billing.team_1-eu.refunds");
	}

	@Test
	void partitionOrderingWithTheRetryQueueIsRefusedBeforeTheBrokerIsAskedNamingTheProperties() {
		ContainerOptions options = KafkaTransportTests.options("ordered", "ordered-refused").ordering(Ordering.PARTITION)
			.retryBlockingLimit(Duration.ofMillis(100)).retryLevels("1m").build();
		assertThatThrownBy(() -> transport.retryQueue(options))
			.isInstanceOfSatisfying(InvalidOptionException.class,
					(ex) -> assertThat(ex.option()).isEqualTo("retry.blocking-limit"))
			.hasMessageContaining("later messages of their partition would pass them")
			.hasMessageContaining("ordering=partition forbids")
			.hasMessageContaining("set ordering=key or unordered");
	}

	@Test
	void keyOrderingMayUseTheRetryQueueWhichNamesTheKeysWaitingInIt() {
		ContainerOptions options = KafkaTransportTests.options("keyed", "keyed-allowed").ordering(Ordering.KEY)
			.retryBlockingLimit(Duration.ofMillis(100)).retryLevels("1m").build();
		RetryQueue queue = transport.retryQueue(options);
		assertThat(queue.namesPendingKeys()).isTrue();
		try (MessageSource source = transport.createSource(options)) {
			assertThat(BatchContainer.builder(options, source, (slice) -> BatchResult.success(),
					transport.deadLetterSink(options)).retryQueue(queue).build()).isNotNull();
		}
	}

	@Test
	void aDeadLetterAfterTheRetryQueueNamesTheOriginalTopicPartitionAndOffsetAndIsReplayedThere() throws Exception {
		String topic = "refunds-origin";
		broker.createTopic(topic, 2);
		List<Object> batch = new ArrayList<>();
		for (int i = 0; i < 6; i++) {
			batch.add(OutgoingMessage.of("k" + i, "refund-" + i));
		}
		List<SendResult> sent = transport.producer().sendBatch(topic, batch);
		ContainerOptions options = KafkaTransportTests.options("origin", topic).ordering(Ordering.UNORDERED)
			.retryMaxAttempts(2).retryBlockingLimit(Duration.ofMillis(100)).retryLevels("150ms").build();
		List<Message<byte[]>> replayed = new CopyOnWriteArrayList<>();
		BatchContainer container = BatchContainer.builder(options, transport.createSource(options), (slice) -> {
			List<Message<byte[]>> failed = new ArrayList<>();
			for (Message<byte[]> message : slice) {
				if (message.headers().containsKey(KafkaDeadLetters.REPLAYED_FROM)) {
					replayed.add(message);
				}
				else {
					failed.add(message);
				}
			}
			return BatchResult.failed(failed);
		}, transport.deadLetterSink(options)).retryQueue(transport.retryQueue(options)).build();
		container.start();
		try {
			await().atMost(Duration.ofSeconds(20)).until(() -> container.stats().messagesDeadLettered() == 6);
			List<ConsumerRecord<String, byte[]>> records = broker.readAll(topic + ".DLQ", 6, Duration.ofSeconds(10));
			assertThat(records).hasSize(6);
			for (ConsumerRecord<String, byte[]> record : records) {
				assertThat(header(record, KafkaDeadLetterSink.ORIGINAL_TOPIC)).isEqualTo(topic);
				assertThat(header(record, RetryQueue.ATTEMPT)).isNull();
			}
			DeadLetterPage page = transport.storedDeadLetters().list(options.group(), List.of(topic), 0, 20);
			assertThat(page.total()).isEqualTo(6);
			assertThat(page.deadLetters()).extracting((d) -> d.topic() + "-" + d.partition() + "@" + d.offset())
				.containsExactlyInAnyOrderElementsOf(
						sent.stream().map((r) -> topic + "-" + r.partition() + "@" + r.offset()).toList());
			assertThat(page.deadLetters()).extracting(StoredDeadLetter::attempts).containsOnly(2);
			List<ReplayResult> results = transport.storedDeadLetters()
				.replay(options.group(), List.of(topic), page.deadLetters().stream().map(StoredDeadLetter::id).toList());
			assertThat(results).extracting(ReplayResult::outcome).containsOnly(ReplayResult.Outcome.REPLAYED);
			assertThat(results).extracting((r) -> r.sent().topic()).containsOnly(topic);
			await().atMost(Duration.ofSeconds(20)).until(() -> replayed.size() == 6);
			// on the original topic, as a first delivery (not the attempt it was dead-lettered with)
			assertThat(replayed).extracting(Message::topic).containsOnly(topic);
			assertThat(replayed).extracting(Message::deliveryAttempt).containsOnly(1);
		}
		finally {
			assertThat(container.stop()).isTrue();
		}
	}

	@Test
	void creatingTheRetryTopicIsLoggedAsTheRetryTopic() {
		Logger logger = (Logger) LoggerFactory.getLogger(DeadLetterTopics.class);
		ListAppender<ILoggingEvent> appender = new ListAppender<>();
		appender.start();
		Level level = logger.getLevel();
		logger.setLevel(Level.INFO);
		logger.addAppender(appender);
		try {
			ContainerOptions options = KafkaTransportTests.options("logged", "logged-topic").ordering(Ordering.UNORDERED)
				.retryBlockingLimit(Duration.ofMillis(100)).retryLevels("1s").build();
			RetryQueue queue = transport.retryQueue(options);
			assertThat(appender.list).extracting(ILoggingEvent::getFormattedMessage)
				.contains("Created retry topic " + queue.topic())
				.noneMatch((line) -> line.contains("dead-letter"));
		}
		finally {
			logger.detachAppender(appender);
			logger.setLevel(level);
		}
	}

	private static String header(ConsumerRecord<String, byte[]> record, String name) {
		Header header = record.headers().lastHeader(name);
		return (header != null) ? new String(header.value(), StandardCharsets.UTF_8) : null;
	}

	@Test
	void retriesComeBackWhenDueThenDeadLetterWhileTheOriginalPartitionIsCommitted() throws Exception {
		String topic = "payments";
		broker.createTopic(topic, 2);
		List<Object> batch = new ArrayList<>();
		for (int i = 0; i < 100; i++) {
			batch.add(OutgoingMessage.of("k" + i, (i % 10 == 3) ? "bad-" + i : "good-" + i));
		}
		transport.producer().sendBatch(topic, batch);
		ContainerOptions options = KafkaTransportTests.options("payments", topic).ordering(Ordering.UNORDERED)
			.retryMaxAttempts(3).retryBlockingLimit(Duration.ofMillis(100)).retryLevels("700ms").build();
		Map<String, List<Message<byte[]>>> bad = new ConcurrentHashMap<>();
		BatchContainer container = BatchContainer.builder(options, transport.createSource(options), (slice) -> {
			List<Message<byte[]>> failed = new ArrayList<>();
			for (Message<byte[]> message : slice) {
				String text = new String(message.payload(), StandardCharsets.UTF_8);
				if (text.startsWith("bad")) {
					bad.computeIfAbsent(text, (t) -> new CopyOnWriteArrayList<>()).add(message);
					failed.add(message);
				}
			}
			return BatchResult.failed(failed);
		}, transport.deadLetterSink(options)).retryQueue(transport.retryQueue(options)).build();
		container.start();
		try {
			Map<Integer, Long> ends = broker.endOffsets(topic, 2);
			await().atMost(Duration.ofSeconds(30))
				.untilAsserted(() -> assertThat(broker.committed(options.group(), topic)).isEqualTo(ends));
			await().atMost(Duration.ofSeconds(30)).until(() -> container.stats().messagesDeadLettered() == 10);
			assertThat(bad).hasSize(10);
			for (List<Message<byte[]>> deliveries : bad.values()) {
				assertThat(deliveries).extracting(Message::deliveryAttempt).containsExactly(1, 2, 3);
				Message<byte[]> first = deliveries.get(0);
				for (Message<byte[]> retry : deliveries.subList(1, 3)) {
					assertThat(retry.topic()).isEqualTo("bc.retry." + options.group() + ".payments");
					assertThat(retry.headers()).containsEntry(RetryQueue.ORIGINAL_TOPIC, topic)
						.containsEntry(RetryQueue.ORIGINAL_OFFSET, Long.toString(first.offset()));
				}
			}
		}
		finally {
			assertThat(container.stop()).isTrue();
		}
	}

}

package io.batchconsumer.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.ContainerSnapshot;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.SliceListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Key order across the retry topic on Kafka: a record of a poisoned key goes to
 * {@code bc.retry.<group>.<id>}, and the later records of that key wait for its retry to finish, holding
 * no thread, while the other keys flow; a container that starts again on the group reads the held key
 * back from the retry topic (its records past the group's committed position), and a retry that another
 * member of the group consumed releases the key once that member committed it.
 */
@Tag("integration")
class KafkaKeyRetryHoldTests extends SharedKafkaTransportTests {

	@Test
	void laterRecordsOfAKeyInTheRetryTopicWaitForItsDeadLetterWhileOtherKeysFlow() throws Exception {
		String topic = "orders-held-dead";
		broker.createTopic(topic, 2);
		List<String> processed = new CopyOnWriteArrayList<>();
		// poison-1 always fails: one retry through the topic 2 s later, then the dead letter.
		ContainerOptions options = options("held-dead", topic).retryMaxAttempts(2).retryLevels("2s").build();
		BatchContainer container = container(options, failing("poison-1", processed));
		container.start();
		try {
			sendBehindTheFirstFailure(topic, container, 2);
			await().atMost(Duration.ofSeconds(8)).untilAsserted(() -> {
				assertThat(processed).as("every other key flows").hasSize(40);
				ContainerSnapshot stats = container.stats();
				assertThat(stats.keysHeldForRetry()).isEqualTo(1);
				assertThat(stats.messagesHeldForRetry()).isEqualTo(2);
				assertThat(stats.busyThreads()).as("no thread waits for the retry").isZero();
			});
			assertThat(processed).noneMatch((text) -> text.startsWith("poison"));
			await().atMost(Duration.ofSeconds(8)).until(() -> processed.size() == 42);
			assertThat(container.stats().messagesDeadLettered()).isEqualTo(1);
			assertThat(processed.subList(40, 42)).containsExactly("poison-2", "poison-3");
			await().atMost(Duration.ofSeconds(3)).until(() -> container.stats().keysHeldForRetry() == 0);
		}
		finally {
			assertThat(container.stop()).isTrue();
		}
	}

	@Test
	void aKeyHeldByTheRetryTopicIsHeldAgainAfterARestartUntilItsRetrySucceeds() throws Exception {
		String topic = "orders-held-restart";
		broker.createTopic(topic, 2);
		List<String> processed = new CopyOnWriteArrayList<>();
		ContainerOptions options = options("held-restart", topic).retryLevels("3s").build();
		BatchContainer first = container(options, failing("poison-1", processed));
		first.start();
		try {
			sendBehindTheFirstFailure(topic, first, 2);
			await().atMost(Duration.ofSeconds(8))
				.until(() -> processed.size() == 40 && first.stats().messagesHeldForRetry() == 2);
		}
		finally {
			assertThat(first.stop()).isTrue();
		}
		// The retry's delivery waits for the test, so the hold is checked before the retry can end it.
		CountDownLatch checked = new CountDownLatch(1);
		SliceListener succeeding = failing("none", processed);
		BatchContainer second = container(options, (slice) -> {
			if (slice.stream().anyMatch((message) -> !message.topic().equals(topic))) {
				assertThat(checked.await(10, TimeUnit.SECONDS)).isTrue();
			}
			return succeeding.onSlice(slice);
		});
		second.start();
		try {
			await().atMost(Duration.ofSeconds(8)).untilAsserted(() -> {
				assertThat(second.stats().keysHeldForRetry()).as("read back from the retry topic").isEqualTo(1);
				assertThat(second.stats().messagesHeldForRetry()).isEqualTo(2);
			});
			assertThat(processed).noneMatch((text) -> text.startsWith("poison"));
			checked.countDown();
			await().atMost(Duration.ofSeconds(8)).until(() -> processed.contains("poison-3"));
			// Records of other keys behind the held ones were not committed and came again: at-least-once.
			assertThat(processed.stream().filter((text) -> text.startsWith("poison")))
				.containsExactly("poison-1", "poison-2", "poison-3");
			await().atMost(Duration.ofSeconds(3)).until(() -> second.stats().keysHeldForRetry() == 0);
		}
		finally {
			assertThat(second.stop()).isTrue();
		}
	}

	@Test
	void aRetryFinishedByTheInstanceThatOwnsTheRetryTopicReleasesTheKeyOnTheOther() throws Exception {
		String topic = "orders-held-shared";
		broker.createTopic(topic, 1);
		List<String> processed = new CopyOnWriteArrayList<>();
		ContainerOptions options = options("held-shared", topic).build();
		broker.createTopic(KafkaRetryQueue.topicOf(options), 1);
		// poison-1 fails its first delivery; its retry succeeds once the test has seen the hold.
		CountDownLatch checked = new CountDownLatch(1);
		SliceListener firstFails = failing("poison-1", processed);
		SliceListener succeeds = failing("none", processed);
		SliceListener listener = (slice) -> {
			if (slice.stream().anyMatch((message) -> !message.topic().equals(topic))) {
				assertThat(checked.await(10, TimeUnit.SECONDS)).isTrue();
				return succeeds.onSlice(slice);
			}
			return firstFails.onSlice(slice);
		};
		BatchContainer one = container(options, listener);
		BatchContainer other = container(options, listener);
		one.start();
		other.start();
		try {
			// two members, two partitions (the topic's and the retry topic's): one each
			await().atMost(Duration.ofSeconds(15))
				.until(() -> one.stats().partitions().size() == 1 && other.stats().partitions().size() == 1);
			BatchContainer holder = one.stats().partitions().get(0).partition().topic().equals(topic) ? one : other;
			sendBehindTheFirstFailure(topic, holder, 1);
			await().atMost(Duration.ofSeconds(8))
				.until(() -> processed.size() == 40 && holder.stats().messagesHeldForRetry() == 2);
			assertThat(processed).noneMatch((text) -> text.startsWith("poison"));
			checked.countDown();
			await().atMost(Duration.ofSeconds(8)).until(() -> processed.contains("poison-3"));
			assertThat(processed.subList(40, 43)).containsExactly("poison-1", "poison-2", "poison-3");
			assertThat(holder.stats().keysHeldForRetry()).isZero();
		}
		finally {
			assertThat(one.stop()).isTrue();
			assertThat(other.stop()).isTrue();
		}
	}

	/**
	 * Sends poison-1, then the rest once it failed: a record of its key delivered in the same listener
	 * call as the failed one is not held back (as with a retry in place), so the rest comes later, once
	 * the container holds the given number of the topic's partitions.
	 */
	private static void sendBehindTheFirstFailure(String topic, BatchContainer container, int partitions) {
		transport.producer().sendBatch(topic, List.of(OutgoingMessage.of("poison", "poison-1")));
		// the container's first join; on a broker that no group used yet it creates the offsets topic first
		await().atMost(Duration.ofSeconds(15)).until(() -> container.stats().messagesRetried() > 0);
		// The consumer group protocol may assign the other partition seconds later: the other keys are
		// to flow while poison-1 waits for its retry, not after it.
		await().atMost(Duration.ofSeconds(15)).until(() -> container.stats().partitions().stream()
			.filter((partition) -> partition.partition().topic().equals(topic)).count() == partitions);
		transport.producer().sendBatch(topic, messages());
	}

	/** Ten keys with four records each, and two more of the poisoned key behind its first. */
	private static List<Object> messages() {
		List<Object> messages = new ArrayList<>();
		for (int i = 0; i < 40; i++) {
			messages.add(OutgoingMessage.of("key-" + (i % 10), "other-" + i));
			if (i == 10 || i == 30) {
				messages.add(OutgoingMessage.of("poison", (i == 10) ? "poison-2" : "poison-3"));
			}
		}
		return messages;
	}

	/** Records the messages that succeed, in order; every delivery of {@code failing} fails. */
	private static SliceListener failing(String failing, List<String> processed) {
		return (slice) -> {
			List<Message<byte[]>> failed = new ArrayList<>();
			for (Message<byte[]> message : slice) {
				String text = new String(message.payload(), StandardCharsets.UTF_8);
				if (text.equals(failing)) {
					failed.add(message);
				}
				else {
					processed.add(text);
				}
			}
			return BatchResult.failed(failed);
		};
	}

	private static ContainerOptions.Builder options(String id, String topic) {
		return KafkaTransportTests.options(id, topic).threadSize(2).consumerBatchSize(5).ordering(Ordering.KEY)
			.retryMaxAttempts(3).retryLevels("1s").retryBlockingLimit(Duration.ofMillis(100))
			.commitInterval(Duration.ofMillis(20)).shutdownTimeout(Duration.ofSeconds(5));
	}

	private static BatchContainer container(ContainerOptions options, SliceListener listener) {
		return BatchContainer.builder(options, transport.createSource(options), listener, transport.deadLetterSink(options))
			.retryQueue(transport.retryQueue(options))
			.build();
	}

}

package io.batchconsumer.core;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;

import io.batchconsumer.core.spi.RetryQueue;
import io.batchconsumer.core.testing.InMemoryBroker;
import io.batchconsumer.core.testing.InMemorySource;
import io.batchconsumer.core.testing.RecordingDeadLetterSink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The per-key rate limit in {@code key} order with a key that waits in its key gate, for the retry
 * queue or behind a slow slice of its own: the messages of the key that arrive meanwhile wait in the
 * gate, and once it lets them go they go at the key's rate (a bucket, then the rate), not all at once:
 * tokens are spent as a slice is handed out.
 */
class KeyRateLimitRetryHoldTests {

	private static final String TOPIC = "calls";

	private static final String RETRY_TOPIC = "bc.retry.g.keyrate-held";

	private static final int RATE = 10;

	private final InMemoryBroker broker = new InMemoryBroker();

	@Test
	void theMessagesOfAKeyThatWaitedForItsRetryGoOnAtTheKeysRate() throws Exception {
		this.broker.createTopic(TOPIC, 1);
		this.broker.createTopic(RETRY_TOPIC, 1);
		HeldRetryQueue queue = new HeldRetryQueue();
		List<Long> deliveredNanos = new CopyOnWriteArrayList<>();
		List<String> delivered = new CopyOnWriteArrayList<>();
		ContainerOptions options = ContainerOptions.builder("keyrate-held").topics(TOPIC).group("g")
			.ordering(Ordering.KEY).threadSize(4).pullBatchSize(50).rateLimitPerKey(RATE).retryLevels("1m")
			.commitInterval(Duration.ofMillis(20)).pollTimeout(Duration.ofMillis(20)).build();
		BatchContainer container = BatchContainer.builder(options,
				new InMemorySource(this.broker, "g", options.pullBatchSize(), List.of()), (SliceListener) (slice) -> {
					for (Message<byte[]> message : slice) {
						delivered.add(new String(message.payload(), StandardCharsets.UTF_8));
						deliveredNanos.add(System.nanoTime());
					}
					return BatchResult.success();
				}, new RecordingDeadLetterSink()).retryQueue(queue).build();
		container.start();
		try {
			await().atMost(Duration.ofSeconds(10)).until(() -> container.stats().keysHeldForRetry() == 1);
			// While the key waits for its retry, its messages come at its rate, batch after batch.
			for (int i = 0; i < RATE + 5; i++) {
				this.broker.append(TOPIC, 0, "held", "held-" + i);
				int appended = i + 1;
				await().atMost(Duration.ofSeconds(5))
					.until(() -> container.stats().messagesHeldForRetry() == appended);
				Thread.sleep(1000 / RATE); // the pace of the producer, not a synchronisation
			}
			assertThat(delivered).isEmpty();
			queue.pending.clear(); // the retry was finished elsewhere: the hold ends within about a second
			await().atMost(Duration.ofSeconds(15)).until(() -> delivered.size() == RATE + 5);
			assertThat(delivered).as("in order").isSortedAccordingTo((a, b) -> Integer.compare(number(a), number(b)));
			for (int i = 0; i < deliveredNanos.size(); i++) {
				double seconds = (deliveredNanos.get(i) - deliveredNanos.get(0)) / 1e9;
				assertThat(i + 1).as("delivered by %.2f s after the first", seconds)
					.isLessThanOrEqualTo((int) (RATE + RATE * seconds) + 1);
			}
		}
		finally {
			assertThat(container.stop()).isTrue();
		}
	}

	@Test
	void theMessagesOfAKeyThatWaitedBehindItsOwnSlowSliceGoOnAtTheKeysRate() throws Exception {
		this.broker.createTopic(TOPIC, 1);
		CountDownLatch slow = new CountDownLatch(1);
		List<Long> deliveredNanos = new CopyOnWriteArrayList<>();
		List<String> delivered = new CopyOnWriteArrayList<>();
		ContainerOptions options = ContainerOptions.builder("keyrate-slow").topics(TOPIC).group("g")
			.ordering(Ordering.KEY).threadSize(4).pullBatchSize(50).rateLimitPerKey(RATE)
			.commitInterval(Duration.ofMillis(20)).pollTimeout(Duration.ofMillis(20)).build();
		BatchContainer container = new BatchContainer(options,
				new InMemorySource(this.broker, "g", options.pullBatchSize(), List.of()), (SliceListener) (slice) -> {
					for (Message<byte[]> message : slice) {
						String payload = new String(message.payload(), StandardCharsets.UTF_8);
						if (payload.equals("slow")) {
							slow.await(); // a call that takes as long as the test wants
							continue;
						}
						delivered.add(payload);
						deliveredNanos.add(System.nanoTime());
					}
					return BatchResult.success();
				}, new RecordingDeadLetterSink());
		this.broker.append(TOPIC, 0, "held", "slow");
		container.start();
		try {
			await().atMost(Duration.ofSeconds(10)).until(() -> container.stats().busyThreads() == 1);
			// While the key's first message takes its time, its next ones come at its rate.
			for (int i = 0; i < RATE + 5; i++) {
				this.broker.append(TOPIC, 0, "held", "held-" + i);
				int appended = i + 2;
				await().atMost(Duration.ofSeconds(5)).until(() -> container.stats().backlog() == appended);
				Thread.sleep(1000 / RATE); // the pace of the producer, not a synchronisation
			}
			assertThat(delivered).isEmpty();
			slow.countDown();
			await().atMost(Duration.ofSeconds(15)).until(() -> delivered.size() == RATE + 5);
			assertThat(delivered).as("in order").isSortedAccordingTo((a, b) -> Integer.compare(number(a), number(b)));
			for (int i = 0; i < deliveredNanos.size(); i++) {
				double seconds = (deliveredNanos.get(i) - deliveredNanos.get(0)) / 1e9;
				assertThat(i + 1).as("delivered by %.2f s after the first", seconds)
					.isLessThanOrEqualTo((int) (RATE + RATE * seconds) + 1);
			}
		}
		finally {
			slow.countDown();
			assertThat(container.stop()).isTrue();
		}
	}

	private static int number(String payload) {
		return Integer.parseInt(payload.substring(payload.indexOf('-') + 1));
	}

	/** A retry queue holding one message of key {@code held} from calls-0 until the test clears it. */
	private static final class HeldRetryQueue implements RetryQueue {

		final List<String> pending = new CopyOnWriteArrayList<>(List.of("held"));

		@Override
		public String topic() {
			return RETRY_TOPIC;
		}

		@Override
		public void schedule(List<Message<byte[]>> messages, Instant dueAt) {
			throw new UnsupportedOperationException("nothing fails here");
		}

		@Override
		public boolean namesPendingKeys() {
			return true;
		}

		@Override
		public List<String> pendingKeys(TopicPartition origin) {
			return origin.topic().equals(TOPIC) ? List.copyOf(this.pending) : List.of();
		}

	}

}

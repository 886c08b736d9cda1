package io.batchconsumer.core;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import io.batchconsumer.core.spi.RetryQueue;
import io.batchconsumer.core.testing.ContainerFixture;
import io.batchconsumer.core.testing.InMemoryBroker;
import io.batchconsumer.core.testing.InMemorySource;
import io.batchconsumer.core.testing.RecordingDeadLetterSink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Key order across the retry queue, in the engine: the keys a partition holds are read from the
 * queue when it is assigned (nothing is handed out before that read succeeded), and a hold the queue
 * no longer has (another instance finished the retry) is released within about a second. One question
 * to the queue serves every partition of a round (each question may cost the queue a round trip to its
 * broker, on the owner thread). A call that a revoke's drain gave up on hands nothing to the queue,
 * whose holds the next epoch read already.
 */
class RetryHoldTests {

	private static final String RETRY_TOPIC = "bc.retry.billing.test";

	private final InMemoryBroker broker = new InMemoryBroker();

	@Test
	void aKeyTheQueueNamesAtAssignmentHoldsItsMessagesUntilTheQueueNoLongerHasIt() {
		this.broker.createTopic(ContainerFixture.TOPIC, 1);
		this.broker.createTopic(RETRY_TOPIC, 1);
		for (String[] message : new String[][] { { "poison", "p-1" }, { "other", "o-1" }, { "poison", "p-2" },
				{ "other", "o-2" } }) {
			this.broker.append(ContainerFixture.TOPIC, 0, message[0], message[1]);
		}
		ElsewhereRetryQueue queue = new ElsewhereRetryQueue();
		List<String> processed = new CopyOnWriteArrayList<>();
		ContainerOptions options = ContainerFixture.options().ordering(Ordering.KEY).retryLevels("1m")
			.commitInterval(Duration.ofMillis(10)).build();
		BatchContainer container = BatchContainer.builder(options,
				new InMemorySource(this.broker, ContainerFixture.GROUP, options.pullBatchSize(), List.of()),
				(SliceListener) (slice) -> {
					slice.forEach((message) -> processed.add(new String(message.payload(), StandardCharsets.UTF_8)));
					return BatchResult.success();
				}, new RecordingDeadLetterSink()).retryQueue(queue).build();
		container.start();
		try {
			await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
				assertThat(processed).containsExactlyInAnyOrder("o-1", "o-2");
				assertThat(container.stats().keysHeldForRetry()).isEqualTo(1);
				assertThat(container.stats().messagesHeldForRetry()).isEqualTo(2);
			});
			assertThat(queue.reads.get()).as("the first read failed, and was tried again").isGreaterThan(1);
			assertThat(this.broker.committed(ContainerFixture.GROUP, new TopicPartition(ContainerFixture.TOPIC, 0)))
				.as("the watermark waits for the held p-1").isZero();

			queue.pending.clear(); // another instance finished the retry
			await().atMost(Duration.ofSeconds(5)).until(() -> processed.size() == 4);
			assertThat(processed.subList(2, 4)).containsExactly("p-1", "p-2");
			await().atMost(Duration.ofSeconds(5))
				.until(() -> this.broker.isFullyCommitted(ContainerFixture.GROUP, ContainerFixture.TOPIC));
		}
		finally {
			assertThat(container.stop()).isTrue();
		}
	}

	@Test
	void oneQuestionToTheQueueServesEveryPartitionThatIsAssignedOrHoldsKeys() {
		this.broker.createTopic(ContainerFixture.TOPIC, 4);
		this.broker.createTopic(RETRY_TOPIC, 1);
		for (int partition = 0; partition < 4; partition++) {
			this.broker.append(ContainerFixture.TOPIC, partition, "poison", "p-" + partition);
		}
		RecordingRetryQueue queue = new RecordingRetryQueue();
		ContainerOptions options = ContainerFixture.options().ordering(Ordering.KEY).retryLevels("1m").build();
		BatchContainer container = BatchContainer.builder(options,
				new InMemorySource(this.broker, ContainerFixture.GROUP, options.pullBatchSize(), List.of()),
				(SliceListener) (slice) -> BatchResult.success(), new RecordingDeadLetterSink()).retryQueue(queue).build();
		container.start();
		try {
			// the read at the assignment, then two comparisons about a second apart
			await().atMost(Duration.ofSeconds(10)).until(() -> queue.questions.size() >= 3);
			assertThat(container.stats().keysHeldForRetry()).isEqualTo(4);
			assertThat(queue.questions).as("the partitions each question named").allSatisfy((asked) -> assertThat(asked)
				.containsExactlyInAnyOrderElementsOf(this.broker.partitions(ContainerFixture.TOPIC)));
		}
		finally {
			assertThat(container.stop()).isTrue();
		}
	}

	@Test
	void aHandOffOfAnEpochWhoseDrainTimedOutIsNotStoredAfterTheNextEpochReadTheQueue() throws Exception {
		this.broker.createTopic(ContainerFixture.TOPIC, 1);
		this.broker.createTopic(RETRY_TOPIC, 1);
		this.broker.append(ContainerFixture.TOPIC, 0, "poison", "p-1");
		this.broker.append(ContainerFixture.TOPIC, 0, "poison", "p-2");
		StoringRetryQueue queue = new StoringRetryQueue();
		List<String> processed = new CopyOnWriteArrayList<>();
		AtomicBoolean firstCall = new AtomicBoolean(true);
		CountDownLatch blocked = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		ContainerOptions options = ContainerFixture.options().ordering(Ordering.KEY).retryLevels("1m")
			.consumerBatchSize(1).commitInterval(Duration.ofMillis(10)).shutdownTimeout(Duration.ofMillis(200)).build();
		InMemorySource source = new InMemorySource(this.broker, ContainerFixture.GROUP, options.pullBatchSize(),
				List.of(new TopicPartition(ContainerFixture.TOPIC, 0)));
		BatchContainer container = BatchContainer.builder(options, source, (SliceListener) (slice) -> {
			if (firstCall.compareAndSet(true, false)) {
				// p-1's first call outlives the revoke's drain, then fails: a hand-off of an ended epoch
				blocked.countDown();
				release.await();
				return BatchResult.failed(slice);
			}
			slice.forEach((message) -> processed.add(new String(message.payload(), StandardCharsets.UTF_8)));
			return BatchResult.success();
		}, new RecordingDeadLetterSink()).retryQueue(queue).build();
		container.start();
		try {
			assertThat(blocked.await(10, TimeUnit.SECONDS)).isTrue();
			TopicPartition orders = new TopicPartition(ContainerFixture.TOPIC, 0);
			source.requestRevoke(List.of(orders));
			await().atMost(Duration.ofSeconds(10)).until(() -> source.assignment().isEmpty());
			source.requestAssign(List.of(orders));
			// The next epoch read the queue (empty) and delivered p-1 again, then p-2.
			await().atMost(Duration.ofSeconds(10)).until(() -> processed.size() == 2);
			assertThat(processed).containsExactly("p-1", "p-2");
			release.countDown();
			await().atMost(Duration.ofSeconds(10)).until(() -> container.stats().messagesRetried() >= 1);
			// Stored now, p-1's copy would come back after p-2, which its key no longer holds.
			await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2))
				.untilAsserted(() -> assertThat(queue.scheduled).as("retries stored by the ended epoch").isEmpty());
		}
		finally {
			release.countDown();
			assertThat(container.stop()).isTrue();
		}
	}

	/** A retry queue holding one message of key {@code poison} from each partition, recording its questions. */
	private static final class RecordingRetryQueue implements RetryQueue {

		final List<List<TopicPartition>> questions = new CopyOnWriteArrayList<>();

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
			this.questions.add(List.of(origin));
			return List.of("poison");
		}

		// the question about several partitions at once
		public Map<TopicPartition, List<String>> pendingKeys(Collection<TopicPartition> origins) {
			this.questions.add(List.copyOf(origins));
			Map<TopicPartition, List<String>> keys = new LinkedHashMap<>();
			origins.forEach((origin) -> keys.put(origin, List.of("poison")));
			return keys;
		}

	}

	/**
	 * A retry queue whose retries another instance delivers: it holds one message of key
	 * {@code poison} from orders-0 until the test clears it, and its first read fails.
	 */
	private static final class ElsewhereRetryQueue implements RetryQueue {

		final List<String> pending = new CopyOnWriteArrayList<>(List.of("poison"));

		final AtomicInteger reads = new AtomicInteger();

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
			if (this.reads.incrementAndGet() == 1) {
				throw new IllegalStateException("the database is not there yet");
			}
			return origin.equals(new TopicPartition(ContainerFixture.TOPIC, 0)) ? new ArrayList<>(this.pending)
					: List.of();
		}

	}

	/** A retry queue that records what it is given and never delivers it. */
	private static final class StoringRetryQueue implements RetryQueue {

		final List<Message<byte[]>> scheduled = new CopyOnWriteArrayList<>();

		@Override
		public String topic() {
			return RETRY_TOPIC;
		}

		@Override
		public void schedule(List<Message<byte[]>> messages, Instant dueAt) {
			this.scheduled.addAll(messages);
		}

		@Override
		public boolean namesPendingKeys() {
			return true;
		}

		@Override
		public List<String> pendingKeys(TopicPartition origin) {
			return this.scheduled.stream()
				.filter((message) -> message.topicPartition().equals(origin))
				.map(Message::key)
				.toList();
		}

	}

}

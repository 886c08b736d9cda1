package io.batchconsumer.core;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.batchconsumer.core.testing.InMemoryBroker;
import io.batchconsumer.core.testing.InMemorySource;
import io.batchconsumer.core.testing.ProcessingGuarantee;
import io.batchconsumer.core.testing.RecordingDeadLetterSink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Batches that wait to fill, bounded by bytes, and the rate limit, on a running container over the
 * in-memory broker: the {@link ProcessingGuarantee} holds (no commit past unfinished work, keys in
 * order), every message is delivered once, a stop does not wait for a batch to fill, and a rate
 * limit holds work back until it is lifted at runtime.
 */
class BatchFillContainerTests {

	private static final String TOPIC = "orders";

	private final InMemoryBroker broker = new InMemoryBroker();

	private final ProcessingGuarantee guarantee = new ProcessingGuarantee(this.broker, Ordering.KEY);

	private final Map<String, AtomicInteger> deliveries = new ConcurrentHashMap<>();

	private final AtomicInteger largestCallBytes = new AtomicInteger();

	private BatchContainer container;

	@AfterEach
	void stop() {
		if (this.container != null) {
			this.container.stop();
		}
	}

	@Test
	void keyOrderAndTheWatermarkHoldWhileBatchesWaitToFillAndAreBoundedByBytes() {
		produce(3, 600);
		start((options) -> options.consumerBatchSize(50).consumerBatchMinSize(20)
			.consumerBatchMaxWait(Duration.ofMillis(20)).consumerBatchMaxBytes(600));

		await().atMost(Duration.ofSeconds(30)).until(() -> this.broker.isFullyCommitted("g", TOPIC));
		this.guarantee.assertNoViolations();
		this.guarantee.assertEverythingFinished(TOPIC);
		assertThat(this.deliveries).hasSize(1800);
		assertThat(this.deliveries.values()).allSatisfy((count) -> assertThat(count.get()).isEqualTo(1));
		assertThat(this.largestCallBytes.get()).as("no call over consumer-batch-max-bytes").isLessThanOrEqualTo(600);
	}

	@Test
	@Timeout(value = 20, unit = TimeUnit.SECONDS)
	void aStopDoesNotWaitForABatchToFillAndCommitsNothingOfIt() {
		produce(1, 3);
		start((options) -> options.consumerBatchSize(50).consumerBatchMinSize(10)
			.consumerBatchMaxWait(Duration.ofHours(1)));
		await().atMost(Duration.ofSeconds(10)).until(() -> this.container.stats().backlog() == 3);

		assertThat(this.container.stop()).as("stopped within the shutdown time-out").isTrue();
		assertThat(this.deliveries).as("the waiting batch is delivered again after a restart, not now").isEmpty();
		assertThat(this.broker.committed("g", new TopicPartition(TOPIC, 0))).isLessThanOrEqualTo(0);
	}

	@Test
	void aRateLimitHoldsWorkBackCountedUntilItIsLiftedAtRuntime() throws Exception {
		produce(2, 100);
		start((options) -> options.rateLimit(1));
		await().atMost(Duration.ofSeconds(10)).until(() -> this.container.stats().rateLimitHolds() > 0
				&& this.container.stats().backlog() > 150);
		assertThat(this.deliveries.size()).as("one message a second").isLessThan(100);

		this.container.tune(Map.of("rate-limit", 0)).get(10, TimeUnit.SECONDS);
		await().atMost(Duration.ofSeconds(30)).until(() -> this.broker.isFullyCommitted("g", TOPIC));
		this.guarantee.assertNoViolations();
		assertThat(this.deliveries).hasSize(200);
	}

	private void produce(int partitions, int perPartition) {
		this.broker.createTopic(TOPIC, partitions);
		for (int i = 0; i < partitions * perPartition; i++) {
			this.broker.append(TOPIC, i % partitions, "k" + (i % 13), "message-" + i);
		}
		this.guarantee.produced(TOPIC);
	}

	private void start(java.util.function.UnaryOperator<ContainerOptions.Builder> customizer) {
		ContainerOptions options = customizer.apply(ContainerOptions.builder("fill").topics(TOPIC).group("g")
			.ordering(Ordering.KEY).threadSize(4).pullBatchSize(40).commitInterval(Duration.ofMillis(20))
			.pollTimeout(Duration.ofMillis(20)).shutdownTimeout(Duration.ofSeconds(10))).build();
		InMemorySource source = new InMemorySource(this.broker, "g", options.pullBatchSize(), List.of());
		source.onFetch(this.guarantee::fetched);
		source.onAssign(this.guarantee::assigned);
		this.container = new BatchContainer(options, source, this::onSlice, new RecordingDeadLetterSink());
		this.container.start();
	}

	private BatchResult onSlice(List<Message<byte[]>> slice) {
		List<String> token = this.guarantee.sliceStarted(slice);
		try {
			this.largestCallBytes.accumulateAndGet(slice.stream().mapToInt(Message::serializedSize).sum(), Math::max);
			for (Message<byte[]> message : slice) {
				this.deliveries.computeIfAbsent(message.topicPartition() + "@" + message.offset(),
						(k) -> new AtomicInteger()).incrementAndGet();
				this.guarantee.finished(message);
			}
			return BatchResult.success();
		}
		finally {
			this.guarantee.sliceEnded(token);
		}
	}

}

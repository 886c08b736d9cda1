package io.batchconsumer.core;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.batchconsumer.core.testing.InMemoryBroker;
import io.batchconsumer.core.testing.InMemorySource;
import io.batchconsumer.core.testing.ProcessingGuarantee;
import io.batchconsumer.core.testing.RecordingDeadLetterSink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The per-key rate limit on a running container over the in-memory broker: a hot key gets no more
 * than its rate (plus its first second's bucket) while the other keys' messages all go through, the
 * held messages are in the backlog and not committed, the {@link ProcessingGuarantee} holds (keys in
 * order in {@code key} order), and lifting the limit at runtime lets everything finish once.
 */
class KeyRateLimitContainerTests {

	private static final String TOPIC = "calls";

	private static final int RATE = 20;

	private final InMemoryBroker broker = new InMemoryBroker();

	private final Map<String, AtomicInteger> deliveries = new ConcurrentHashMap<>();

	private final AtomicInteger hotDelivered = new AtomicInteger();

	private final AtomicInteger coldDelivered = new AtomicInteger();

	private ProcessingGuarantee guarantee;

	private BatchContainer container;

	@AfterEach
	void stop() {
		if (this.container != null) {
			this.container.stop();
		}
	}

	@ParameterizedTest
	@EnumSource(value = Ordering.class, names = { "UNORDERED", "KEY" })
	void aHotKeyIsHeldToItsRateWhileOtherKeysGoThrough(Ordering ordering) throws Exception {
		this.guarantee = new ProcessingGuarantee(this.broker, ordering);
		this.broker.createTopic(TOPIC, 1);
		for (int i = 0; i < 400; i++) {
			// Every fourth message is the hot key's; the others spread over 29 keys, under their rate.
			this.broker.append(TOPIC, 0, (i % 4 == 0) ? "hot" : "cold" + (i % 29), "message-" + i);
		}
		this.guarantee.produced(TOPIC);
		long startNanos = System.nanoTime();
		start(ordering);

		await().atMost(Duration.ofSeconds(10)).until(() -> this.coldDelivered.get() == 300);
		double seconds = (System.nanoTime() - startNanos) / 1e9;
		assertThat(this.hotDelivered.get()).as("at most a bucket plus the rate for %.2f s", seconds)
			.isLessThanOrEqualTo((int) (RATE + RATE * seconds));
		assertThat(this.hotDelivered.get()).as("held while the others went").isLessThan(100);
		assertThat(this.container.stats().keyRateLimitHolds()).isPositive();
		// Held back without a thread, in the backlog.
		await().atMost(Duration.ofSeconds(5)).until(() -> this.container.stats().busyThreads() == 0
				&& this.container.stats().backlog() > 0
				&& this.container.stats().backlog() == 100 - this.hotDelivered.get());
		assertThat(this.broker.committed("g", new TopicPartition(TOPIC, 0))).as("not past the held messages")
			.isLessThan(400);

		await().atMost(Duration.ofSeconds(5)).alias("it goes on at its rate").until(() -> this.hotDelivered.get() > RATE);

		this.container.tune(Map.of("rate-limit-per-key", 0)).get(10, TimeUnit.SECONDS);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.broker.isFullyCommitted("g", TOPIC));
		this.guarantee.assertNoViolations();
		this.guarantee.assertEverythingFinished(TOPIC);
		assertThat(this.deliveries).hasSize(400);
		assertThat(this.deliveries.values()).allSatisfy((count) -> assertThat(count.get()).isEqualTo(1));
	}

	private void start(Ordering ordering) {
		ContainerOptions options = ContainerOptions.builder("keyrate").topics(TOPIC).group("g").ordering(ordering)
			.threadSize(4).pullBatchSize(50).rateLimitPerKey(RATE).commitInterval(Duration.ofMillis(20))
			.pollTimeout(Duration.ofMillis(20)).shutdownTimeout(Duration.ofSeconds(10)).build();
		InMemorySource source = new InMemorySource(this.broker, "g", options.pullBatchSize(), List.of());
		source.onFetch(this.guarantee::fetched);
		source.onAssign(this.guarantee::assigned);
		this.container = new BatchContainer(options, source, this::onSlice, new RecordingDeadLetterSink());
		this.container.start();
	}

	private BatchResult onSlice(List<Message<byte[]>> slice) {
		List<String> token = this.guarantee.sliceStarted(slice);
		try {
			for (Message<byte[]> message : slice) {
				this.deliveries.computeIfAbsent(message.topicPartition() + "@" + message.offset(),
						(k) -> new AtomicInteger()).incrementAndGet();
				("hot".equals(message.key()) ? this.hotDelivered : this.coldDelivered).incrementAndGet();
				this.guarantee.finished(message);
			}
			return BatchResult.success();
		}
		finally {
			this.guarantee.sliceEnded(token);
		}
	}

}

package io.batchconsumer.core;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
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
 * Slices held by their key's rate ({@code WAITING_FOR_RATE}) inside an open batch when their partition's
 * epoch ends or drains: a revoke, a seek and a stop neither wait for them (no thread runs them, the
 * {@code shutdown-timeout} here is an hour) nor commit past them, and once the limit is lifted every
 * message finishes, keys in order ({@link ProcessingGuarantee}).
 */
class KeyRateLimitEpochTests {

	private static final String TOPIC = "calls";

	private static final TopicPartition PARTITION = new TopicPartition(TOPIC, 0);

	private final InMemoryBroker broker = new InMemoryBroker();

	private final AtomicInteger hotDelivered = new AtomicInteger();

	private final ProcessingGuarantee guarantee = new ProcessingGuarantee(this.broker, Ordering.KEY);

	private BatchContainer container;

	private InMemorySource source;

	enum Disturbance {
		REVOKE, SEEK, STOP
	}

	@AfterEach
	void stop() {
		if (this.container != null) {
			this.container.stop();
		}
	}

	@ParameterizedTest
	@EnumSource(Disturbance.class)
	void slicesHeldByTheirKeysRateAreNeitherWaitedForNorCommittedPastWhenTheirEpochEnds(Disturbance disturbance)
			throws Exception {
		this.broker.createTopic(TOPIC, 1);
		for (int i = 0; i < 200; i++) {
			this.broker.append(TOPIC, 0, (i % 2 == 0) ? "hot" : "cold" + (i % 37), "message-" + i);
		}
		this.guarantee.produced(TOPIC);
		start(2);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.container.stats().keyRateLimitHolds() > 0
				&& this.container.stats().busyThreads() == 0 && this.hotDelivered.get() >= 2);
		assertThat(this.broker.committed("g", PARTITION)).as("not past the held messages").isLessThan(200);

		switch (disturbance) {
			case REVOKE -> {
				this.source.requestRevoke(List.of(PARTITION));
				await().atMost(Duration.ofSeconds(10)).until(() -> this.source.assignment().isEmpty());
				this.source.requestAssign(List.of(PARTITION));
				await().atMost(Duration.ofSeconds(10)).until(() -> this.source.assignment().contains(PARTITION));
			}
			case SEEK -> {
				this.guarantee.allowRewindTo(PARTITION, 0);
				this.container.seek(PARTITION, 0).get(10, TimeUnit.SECONDS);
			}
			case STOP -> {
				CompletableFuture<Boolean> stopped = CompletableFuture.supplyAsync(this.container::stop);
				assertThat(stopped.get(10, TimeUnit.SECONDS)).as("the stop drained at once").isTrue();
				assertThat(this.broker.committed("g", PARTITION)).as("not past the held messages").isLessThan(200);
				start(2);
			}
		}
		this.container.tune(Map.of("rate-limit-per-key", 0)).get(10, TimeUnit.SECONDS);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.broker.isFullyCommitted("g", TOPIC));
		this.guarantee.assertNoViolations();
		this.guarantee.assertEverythingFinished(TOPIC);
	}

	private void start(int perKey) {
		ContainerOptions options = ContainerOptions.builder("keyrate-epochs").topics(TOPIC).group("g")
			.ordering(Ordering.KEY).threadSize(4).pullBatchSize(50).rateLimitPerKey(perKey)
			.commitInterval(Duration.ofMillis(20)).pollTimeout(Duration.ofMillis(20))
			.shutdownTimeout(Duration.ofHours(1)).build();
		this.source = new InMemorySource(this.broker, "g", options.pullBatchSize(), List.of());
		this.source.onFetch(this.guarantee::fetched);
		this.source.onAssign(this.guarantee::assigned);
		this.container = new BatchContainer(options, this.source, this::onSlice, new RecordingDeadLetterSink());
		this.container.start();
	}

	private BatchResult onSlice(List<Message<byte[]>> slice) {
		List<String> token = this.guarantee.sliceStarted(slice);
		try {
			for (Message<byte[]> message : slice) {
				if ("hot".equals(message.key())) {
					this.hotDelivered.incrementAndGet();
				}
				this.guarantee.finished(message);
			}
			return BatchResult.success();
		}
		finally {
			this.guarantee.sliceEnded(token);
		}
	}

}

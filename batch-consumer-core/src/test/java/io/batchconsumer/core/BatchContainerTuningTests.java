package io.batchconsumer.core;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.batchconsumer.core.options.OptionDescriptor;
import io.batchconsumer.core.testing.InMemoryBroker;
import io.batchconsumer.core.testing.InMemorySource;
import io.batchconsumer.core.testing.ProcessingGuarantee;
import io.batchconsumer.core.testing.RecordingDeadLetterSink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Runtime tuning ({@link BatchContainer#tune}): each tunable option changed twice while the listener
 * is busy, in {@code key} order; the {@link ProcessingGuarantee} holds (commits never pass unfinished
 * work nor go back, keys in order and never in two slices at once), every message is delivered
 * exactly once, and the new value is in force.
 */
class BatchContainerTuningTests {

	private static final String TOPIC = "orders";

	private static final int PARTITIONS = 3;

	private static final int PER_PARTITION = 1500;

	private final InMemoryBroker broker = new InMemoryBroker();

	private final ProcessingGuarantee guarantee = new ProcessingGuarantee(this.broker, Ordering.KEY);

	private final Map<String, AtomicInteger> deliveries = new ConcurrentHashMap<>();

	private final AtomicInteger largestSlice = new AtomicInteger();

	private final AtomicInteger running = new AtomicInteger();

	private final AtomicInteger mostRunningAfterChange = new AtomicInteger();

	private volatile boolean changed;

	/**
	 * Holds slices from starting once three quarters are delivered, until the second value is in
	 * force: a quarter of the work is left for it to shape. Not for {@code thread-size}, whose slices
	 * handed out before the change must run before the change is judged.
	 */
	private volatile CountDownLatch hold;

	private BatchContainer container;

	@AfterEach
	void stop() {
		if (this.hold != null) {
			this.hold.countDown();
		}
		if (this.container != null) {
			this.container.stop();
		}
	}

	@ParameterizedTest(name = "{0}: {1} then {2}")
	@CsvSource({ "thread-size, 8, 2", "consumer-batch-size, 3, 25", "pull-batch-size, 5, 200",
			"flow-control.pull-threshold-for-queue, 40, 400", "flow-control.pull-threshold-size-for-queue, 2000, 50000",
			"flow-control.max-span, 60, 900" })
	void aChangeWhileTheListenerIsBusyKeepsTheGuarantee(String key, String first, String second) throws Exception {
		if (!"thread-size".equals(key)) {
			this.hold = new CountDownLatch(1);
		}
		start();
		await().atMost(Duration.ofSeconds(20)).until(() -> this.deliveries.size() > PARTITIONS * PER_PARTITION / 4);
		ContainerOptions tuned = this.container.tune(Map.of(key, first)).get(10, TimeUnit.SECONDS);
		assertThat(OptionDescriptor.all().stream().filter((o) -> o.key().equals(key)).findFirst().orElseThrow()
			.read(tuned).toString()).isEqualTo(first);
		await().atMost(Duration.ofSeconds(20)).until(() -> this.deliveries.size() > PARTITIONS * PER_PARTITION / 2);
		this.container.tune(Map.of(key, second)).get(10, TimeUnit.SECONDS);
		int value = Integer.parseInt(second);
		if ("thread-size".equals(key)) {
			// Slices handed out before the change may still run, and a worker may have taken a queued one
			// just before: wait until the workers over the new size retired.
			await().atMost(Duration.ofSeconds(20)).until(() -> workerThreads() <= value);
		}
		this.largestSlice.set(0);
		this.mostRunningAfterChange.set(0);
		this.changed = true;
		if (this.hold != null) {
			this.hold.countDown();
		}
		await().atMost(Duration.ofSeconds(60)).until(() -> this.broker.isFullyCommitted("g", TOPIC));
		this.guarantee.assertNoViolations();
		this.guarantee.assertEverythingFinished(TOPIC);
		assertThat(this.deliveries).hasSize(PARTITIONS * PER_PARTITION);
		assertThat(this.deliveries.values()).allMatch((count) -> count.get() == 1);
		assertThat(this.container.options()).isEqualTo(Tuning.apply(tuned, Map.of(key, second)));
		assertInForce(key, value);
	}

	@Test
	void aKeyThatIsNotTunableOrABadValueChangesNothing() throws Exception {
		start();
		ContainerOptions before = this.container.options();
		assertThatThrownBy(() -> this.container.tune(Map.of("ordering", "unordered")).get(10, TimeUnit.SECONDS))
			.isInstanceOf(ExecutionException.class).cause().isInstanceOf(IllegalArgumentException.class)
			.hasMessageContaining("cannot be changed while running");
		assertThatThrownBy(() -> this.container.tune(Map.of("thread-size", 2, "consumer-batch-size", 0))
			.get(10, TimeUnit.SECONDS)).cause().isInstanceOf(InvalidOptionException.class)
			.hasMessageContaining("consumer-batch-size");
		assertThat(this.container.options()).isEqualTo(before);
		assertThat(this.container.stats().threadSize()).isEqualTo(before.threadSize());
	}

	private static long workerThreads() {
		return Thread.getAllStackTraces().keySet().stream()
			.filter((thread) -> thread.isAlive() && thread.getName().startsWith("batch-consumer-tuning-worker"))
			.count();
	}

	private void assertInForce(String key, int value) {
		switch (key) {
			case "thread-size" -> {
				assertThat(this.container.stats().threadSize()).isEqualTo(value);
				assertThat(this.mostRunningAfterChange.get()).isLessThanOrEqualTo(value);
			}
			case "consumer-batch-size" -> assertThat(this.largestSlice.get()).isBetween(1, value);
			default -> {
				// The options equal the tuned ones (asserted above); the source and flow control read them.
			}
		}
	}

	private void start() {
		this.broker.createTopic(TOPIC, PARTITIONS);
		for (int i = 0; i < PARTITIONS * PER_PARTITION; i++) {
			this.broker.append(TOPIC, i % PARTITIONS, "k" + (i % 37), "m" + i);
		}
		this.guarantee.produced(TOPIC);
		ContainerOptions options = ContainerOptions.builder("tuning").topics(TOPIC).group("g").ordering(Ordering.KEY)
			.threadSize(4).consumerBatchSize(10).pullBatchSize(50).pullThresholdForQueue(200).maxSpan(400)
			.commitInterval(Duration.ofMillis(20)).suspend(Duration.ofMillis(5)).pollTimeout(Duration.ofMillis(20))
			.build();
		InMemorySource source = new InMemorySource(this.broker, "g", options.pullBatchSize(), List.of());
		source.onFetch(this.guarantee::fetched);
		source.onAssign(this.guarantee::assigned);
		this.container = new BatchContainer(options, source, this::onSlice, new RecordingDeadLetterSink());
		this.container.start();
	}

	private BatchResult onSlice(List<Message<byte[]>> slice) throws InterruptedException {
		CountDownLatch hold = this.hold;
		if (hold != null && this.deliveries.size() >= PARTITIONS * PER_PARTITION * 3 / 4) {
			hold.await();
		}
		List<String> token = this.guarantee.sliceStarted(slice);
		int now = this.running.incrementAndGet();
		try {
			if (this.changed) {
				this.largestSlice.accumulateAndGet(slice.size(), Math::max);
				this.mostRunningAfterChange.accumulateAndGet(now, Math::max);
			}
			// Busy: a little I/O-like wait per slice.
			Thread.sleep(1);
			for (Message<byte[]> message : slice) {
				this.deliveries.computeIfAbsent(message.topicPartition() + "@" + message.offset(),
						(k) -> new AtomicInteger()).incrementAndGet();
				this.guarantee.finished(message);
			}
			return BatchResult.success();
		}
		finally {
			this.running.decrementAndGet();
			this.guarantee.sliceEnded(token);
		}
	}

}

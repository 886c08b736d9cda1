package io.batchconsumer.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import io.batchconsumer.core.testing.InMemoryBroker;
import io.batchconsumer.core.testing.InMemorySource;
import io.batchconsumer.core.testing.ProcessingGuarantee;
import io.batchconsumer.core.testing.RecordingDeadLetterSink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Random workloads, options, failures, dead-letter outages, rebalances and crash-restarts, one
 * seed a case. Replay a failing seed with {@code -Dtest='BatchContainerRandomizedTests'} and
 * {@code -Dbatch-consumer.seeds=<seed>}.
 */
class BatchContainerRandomizedTests {

	private static final String TOPIC = "t";

	private static final String GROUP = "g";

	static Stream<Long> seeds() {
		String only = System.getProperty("batch-consumer.seeds");
		if (only != null && !only.isBlank()) {
			return Stream.of(only.split(",")).map(String::trim).map(Long::parseLong);
		}
		return LongStream.rangeClosed(1, 30).boxed();
	}

	@ParameterizedTest(name = "seed {0}")
	@MethodSource("seeds")
	void commitsNeverPassUnfinishedWorkAndEveryMessageIsProcessed(long seed) throws Exception {
		try {
			new Run(seed).execute();
		}
		catch (Throwable ex) {
			throw new AssertionError("seed " + seed + " failed; replay with -Dbatch-consumer.seeds=" + seed, ex);
		}
	}

	private static final class Run {

		private final long seed;

		private final Random random;

		private final InMemoryBroker broker = new InMemoryBroker();

		private final Ordering ordering;

		private final ProcessingGuarantee guarantee;

		private final Set<Long> poison = new HashSet<>();

		private final Random listenerRandom;

		private ContainerOptions options;

		private RecordingDeadLetterSink deadLetters;

		private InMemorySource source;

		private BatchContainer container;

		Run(long seed) {
			this.seed = seed;
			this.random = new Random(seed);
			this.listenerRandom = new Random(seed * 31);
			this.ordering = Ordering.values()[this.random.nextInt(3)];
			this.guarantee = new ProcessingGuarantee(this.broker, this.ordering);
		}

		void execute() throws Exception {
			int partitions = 1 + this.random.nextInt(4);
			produce(partitions);
			this.options = randomOptions();
			this.guarantee.boundOutstanding(this.options.pullThresholdForQueue() + this.options.pullBatchSize());
			this.deadLetters = new RecordingDeadLetterSink((dl) -> this.guarantee.finished(dl.message()), this.seed, 0.3);
			startContainer();
			int events = this.random.nextInt(7);
			for (int i = 0; i < events; i++) {
				chaos();
			}
			await().atMost(Duration.ofSeconds(60)).until(() -> this.broker.isFullyCommitted(GROUP, TOPIC));
			await().atMost(Duration.ofSeconds(30)).until(() -> this.container.stats().backlog() == 0);
			assertThat(this.container.stop()).isTrue();
			this.guarantee.assertNoViolations();
			this.guarantee.assertEverythingFinished(TOPIC);
			Set<Long> deadLettered = new HashSet<>();
			this.deadLetters.stored().forEach((dl) -> deadLettered.add(dl.message().offset() * 16 + dl.message().partition()));
			assertThat(deadLettered).as("poison messages dead-lettered").containsAll(this.poison);
		}

		private void produce(int partitions) {
			this.broker.createTopic(TOPIC, partitions);
			int total = 1000 + this.random.nextInt(3000);
			int keys = 1 + this.random.nextInt(40);
			for (int i = 0; i < total; i++) {
				int partition = this.random.nextInt(partitions);
				String key = (this.random.nextInt(10) == 0) ? null : "k" + this.random.nextInt(keys);
				long offset = this.broker.append(TOPIC, partition, key, "m" + i);
				if (this.random.nextInt(300) == 0) {
					this.poison.add(offset * 16 + partition);
				}
			}
			this.guarantee.produced(TOPIC);
		}

		private ContainerOptions randomOptions() {
			return ContainerOptions.builder("rnd-" + this.seed)
				.topics(TOPIC)
				.group(GROUP)
				.ordering(this.ordering)
				.threadSize(1 + this.random.nextInt(8))
				.consumerBatchSize(1 + this.random.nextInt(10))
				.pullBatchSize(1 + this.random.nextInt(64))
				.pullThresholdForQueue(20 + this.random.nextInt(200))
				.pullThresholdSizeForQueue(this.random.nextBoolean() ? 100L * 1024 * 1024 : 500 + this.random.nextInt(5000))
				.maxSpan(50 + this.random.nextInt(500))
				.suspend(Duration.ofMillis(1))
				.commitInterval(this.random.nextBoolean() ? Duration.ZERO : Duration.ofMillis(5))
				.retryMaxAttempts(1 + this.random.nextInt(3))
				.retryBackoff(Duration.ofMillis(1))
				.retryMaxBackoff(Duration.ofMillis(2))
				.shutdownTimeout(Duration.ofSeconds(10))
				.pollTimeout(Duration.ofMillis(50))
				.build();
		}

		private void startContainer() {
			this.source = new InMemorySource(this.broker, GROUP, this.options.pullBatchSize(), List.of());
			this.source.onFetch(this.guarantee::fetched);
			this.source.onAssign(this.guarantee::assigned);
			this.container = new BatchContainer(this.options, this.source, this::onSlice, this.deadLetters);
			this.container.start();
			// Chaos requests queue behind the first assignment, never before it.
			await().atMost(Duration.ofSeconds(10)).until(() -> !this.source.assignment().isEmpty());
		}

		private BatchResult onSlice(List<Message<byte[]>> slice) throws Exception {
			List<String> token = this.guarantee.sliceStarted(slice);
			try {
				int dice;
				synchronized (this.listenerRandom) {
					dice = this.listenerRandom.nextInt(100);
				}
				if (dice == 0) {
					Thread.sleep(1);
				}
				if (dice == 1) {
					throw new IllegalStateException("random failure of a whole slice");
				}
				List<Message<byte[]>> failed = new ArrayList<>();
				for (int i = 0; i < slice.size(); i++) {
					Message<byte[]> message = slice.get(i);
					boolean isPoison = this.poison.contains(message.offset() * 16 + message.partition());
					if (isPoison || (dice == 2 && i % 2 == 0)) {
						failed.add(message);
					}
					else {
						this.guarantee.finished(message);
					}
				}
				return BatchResult.failed(failed, new IllegalArgumentException("poison"));
			}
			finally {
				this.guarantee.sliceEnded(token);
			}
		}

		private void chaos() throws Exception {
			Thread.sleep(this.random.nextInt(30));
			List<TopicPartition> all = this.broker.partitions(TOPIC);
			List<TopicPartition> some = all.stream().filter((tp) -> this.random.nextBoolean()).toList();
			switch (this.random.nextInt(3)) {
				case 0 -> {
					this.source.requestRevoke(some);
					this.source.requestAssign(some);
				}
				case 1 -> {
					this.source.requestLose(some);
					await().atMost(Duration.ofSeconds(10)).until(() -> !this.source.assignment().containsAll(some)
							|| some.isEmpty());
					await().atMost(Duration.ofSeconds(10)).until(() -> this.guarantee.isIdle(some));
					this.source.requestAssign(some);
				}
				default -> {
					this.container.abort();
					this.guarantee.allowRewind();
					startContainer();
				}
			}
		}

	}

}

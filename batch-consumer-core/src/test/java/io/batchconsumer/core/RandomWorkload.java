package io.batchconsumer.core;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import io.batchconsumer.core.testing.InMemoryBroker;
import io.batchconsumer.core.testing.InMemorySource;
import io.batchconsumer.core.testing.ProcessingGuarantee;
import io.batchconsumer.core.testing.RecordingDeadLetterSink;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The set-up the two randomized container tests ({@link BatchContainerRandomizedTests},
 * {@link BatchContainerFaultRandomizedTests}) share: the seeds, one topic of random keyed records
 * with some poison messages in an {@link InMemoryBroker}, a random ordering, random options, a
 * source wired to the {@link ProcessingGuarantee}, and the checks every run ends with. The random
 * draws happen in the order the tests made them before they shared this class, so a seed replays
 * the same run.
 *
 * <p>Threading: built and driven by the test thread; {@link #isPoison} is read by workers after
 * {@link #produce} returned (the set is not changed after that).
 */
final class RandomWorkload {

	static final String TOPIC = "t";

	static final String GROUP = "g";

	final InMemoryBroker broker = new InMemoryBroker();

	final Ordering ordering;

	final ProcessingGuarantee guarantee;

	/** Poison messages, as {@code offset * 16 + partition}: they fail every attempt. */
	private final Set<Long> poison = new HashSet<>();

	private final Random random;

	/**
	 * Draws the ordering.
	 * @param random the run's random, seeded by the run's seed
	 */
	RandomWorkload(Random random) {
		this.random = random;
		this.ordering = Ordering.values()[random.nextInt(3)];
		this.guarantee = new ProcessingGuarantee(this.broker, this.ordering);
	}

	/**
	 * The seeds to run: {@code -Dbatch-consumer.seeds=<seed>,...} when set, else 1 to {@code count}.
	 * @param count how many seeds by default
	 * @return the seeds
	 */
	static Stream<Long> seeds(long count) {
		String only = System.getProperty("batch-consumer.seeds");
		if (only != null && !only.isBlank()) {
			return Stream.of(only.split(",")).map(String::trim).map(Long::parseLong);
		}
		return LongStream.rangeClosed(1, count).boxed();
	}

	/**
	 * Creates the topic with 1 to 4 partitions and appends random records to random partitions.
	 * @param minimum the fewest records
	 * @param spread how many more records at most (exclusive)
	 * @param keys how many keys at most (exclusive); one record in ten has no key
	 * @param poisonOneIn one record in about this many is poison
	 */
	void produce(int minimum, int spread, int keys, int poisonOneIn) {
		int partitions = 1 + this.random.nextInt(4);
		this.broker.createTopic(TOPIC, partitions);
		int total = minimum + this.random.nextInt(spread);
		int keyCount = 1 + this.random.nextInt(keys);
		for (int i = 0; i < total; i++) {
			int partition = this.random.nextInt(partitions);
			String key = (this.random.nextInt(10) == 0) ? null : "k" + this.random.nextInt(keyCount);
			long offset = this.broker.append(TOPIC, partition, key, "m" + i);
			if (this.random.nextInt(poisonOneIn) == 0) {
				this.poison.add(offset * 16 + partition);
			}
		}
		this.guarantee.produced(TOPIC);
	}

	/**
	 * Random options: threads, batch and pull sizes, thresholds, span, commit interval and attempts,
	 * with short back-offs and waits.
	 * @param id the container id
	 * @param randomSizeLimit whether to draw {@code pullThresholdSizeForQueue} too
	 * @return the options
	 */
	ContainerOptions options(String id, boolean randomSizeLimit) {
		ContainerOptions.Builder builder = ContainerOptions.builder(id)
			.topics(TOPIC)
			.group(GROUP)
			.ordering(this.ordering)
			.threadSize(1 + this.random.nextInt(8))
			.consumerBatchSize(1 + this.random.nextInt(10))
			.pullBatchSize(1 + this.random.nextInt(64))
			.pullThresholdForQueue(20 + this.random.nextInt(200));
		if (randomSizeLimit) {
			builder.pullThresholdSizeForQueue(
					this.random.nextBoolean() ? 100L * 1024 * 1024 : 500 + this.random.nextInt(5000));
		}
		return builder.maxSpan(50 + this.random.nextInt(500))
			.suspend(Duration.ofMillis(1))
			.commitInterval(this.random.nextBoolean() ? Duration.ZERO : Duration.ofMillis(5))
			.retryMaxAttempts(1 + this.random.nextInt(3))
			.retryBackoff(Duration.ofMillis(1))
			.retryMaxBackoff(Duration.ofMillis(2))
			.shutdownTimeout(Duration.ofSeconds(10))
			.pollTimeout(Duration.ofMillis(50))
			.build();
	}

	/**
	 * A source of the group on the broker that tells the guarantee what it fetches and assigns.
	 * @param pullBatchSize records per fetch
	 * @return the source
	 */
	InMemorySource newSource(int pullBatchSize) {
		InMemorySource source = new InMemorySource(this.broker, GROUP, pullBatchSize, List.of());
		source.onFetch(this.guarantee::fetched);
		source.onAssign(this.guarantee::assigned);
		return source;
	}

	/**
	 * Whether a message is poison.
	 * @param message the message
	 * @return whether it fails every attempt
	 */
	boolean isPoison(Message<?> message) {
		return this.poison.contains(message.offset() * 16 + message.partition());
	}

	/**
	 * The checks every run ends with, once the container stopped: no commit passed unfinished work,
	 * every message finished, every poison message dead-lettered.
	 * @param deadLetters the dead letters stored
	 */
	void assertGuaranteesHeld(RecordingDeadLetterSink deadLetters) {
		this.guarantee.assertNoViolations();
		this.guarantee.assertEverythingFinished(TOPIC);
		Set<Long> deadLettered = new HashSet<>();
		deadLetters.stored().forEach((dl) -> deadLettered.add(dl.message().offset() * 16 + dl.message().partition()));
		assertThat(deadLettered).as("poison messages dead-lettered").containsAll(this.poison);
	}

}

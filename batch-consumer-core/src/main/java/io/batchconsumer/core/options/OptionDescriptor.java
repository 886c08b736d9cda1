package io.batchconsumer.core.options;

import java.time.Duration;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

import io.batchconsumer.core.ConsumptionMode;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.InvalidOptionException;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.TagExpression;

/**
 * One option of a listener container, described once: its key (spelled like the properties,
 * {@code thread-size}, {@code flow-control.max-span}), its type, its default, its bounds and the
 * levels that may set it, and its description (a constant's documentation). {@link #all()} is the
 * engine's table; {@link ContainerOptions} takes its defaults and validation from it, and the
 * starter's properties and annotation are held to {@link OptionCatalog} by its tests.
 *
 * <p>Threading: immutable.
 *
 * @param <T> the type of the value
 */
public final class OptionDescriptor<T> {

	/** Where a value can be set, from the most specific to the least. */
	public enum Level {

		/** An attribute of {@code @BatchListener} (the key in camel case: {@code threadSize}). */
		ANNOTATION,

		/** A per-listener property, {@code batch-consumer.listeners.<id>.<key>}. */
		LISTENER,

		/** A global property, {@code batch-consumer.<key>}. */
		GLOBAL

	}

	private static final Set<Level> EVERY_LEVEL = EnumSet.allOf(Level.class);

	private static final Set<Level> PROPERTIES = EnumSet.of(Level.LISTENER, Level.GLOBAL);

	@SuppressWarnings({ "unchecked", "rawtypes" })
	private static final Class<List<String>> LIST = (Class) List.class;

	public static final OptionDescriptor<String> ID = new OptionDescriptor<>("id", String.class, null,
			EnumSet.of(Level.ANNOTATION), ContainerOptions::id, OptionBounds::id,
			"The container id: letters, digits, '.', '_' or '-', unique in the application. It names the threads, "
					+ "the meters and the per-listener properties. Defaults to '<SimpleClassName>.<methodName>'.");

	public static final OptionDescriptor<List<String>> TOPICS = new OptionDescriptor<>("topics", LIST, List.of(),
			EnumSet.of(Level.ANNOTATION, Level.LISTENER), ContainerOptions::topics, OptionBounds::topics,
			"The topics to consume.");

	public static final OptionDescriptor<String> GROUP = new OptionDescriptor<>("group", String.class, "default",
			EVERY_LEVEL, ContainerOptions::group, OptionBounds::group, "The consumer group. Defaults to "
					+ "'spring.application.name', or 'batch-consumer' when that is not set.");

	public static final OptionDescriptor<ConsumptionMode> MODE = new OptionDescriptor<>("mode", ConsumptionMode.class,
			ConsumptionMode.CLUSTERING, EVERY_LEVEL, ContainerOptions::mode, OptionBounds::set,
			"How instances share a topic: 'clustering' (each partition to one instance) or 'broadcast' (every "
					+ "instance gets every message).");

	public static final OptionDescriptor<Integer> THREAD_SIZE = new OptionDescriptor<>("thread-size", Integer.class, 10,
			EVERY_LEVEL, ContainerOptions::threadSize, OptionBounds.between(1, 10_000),
			"How many worker threads each listener container runs.");

	public static final OptionDescriptor<Integer> CONSUMER_BATCH_SIZE = new OptionDescriptor<>("consumer-batch-size",
			Integer.class, 10, EVERY_LEVEL, ContainerOptions::consumerBatchSize, OptionBounds.between(1, 1_000_000),
			"How many messages a list listener gets per call at most (slices of cheap messages grow; a list "
					+ "listener then gets one in several calls).");

	public static final OptionDescriptor<Integer> PULL_BATCH_SIZE = new OptionDescriptor<>("pull-batch-size",
			Integer.class, 32, PROPERTIES, ContainerOptions::pullBatchSize, OptionBounds.between(1, 1_000_000),
			"How many messages one pull fetches at most.");

	public static final OptionDescriptor<Duration> PULL_INTERVAL = new OptionDescriptor<>("pull-interval",
			Duration.class, Duration.ZERO, PROPERTIES, ContainerOptions::pullInterval, OptionBounds::notNegative,
			"How long to wait between two pulls.");

	public static final OptionDescriptor<Ordering> ORDERING = new OptionDescriptor<>("ordering", Ordering.class,
			Ordering.KEY, EVERY_LEVEL, ContainerOptions::ordering, OptionBounds::set,
			"Which order is kept within a partition: 'unordered', 'key' (per message key) or 'partition' (one "
					+ "slice at a time per partition).");

	public static final OptionDescriptor<Integer> PULL_THRESHOLD_FOR_QUEUE = new OptionDescriptor<>(
			"flow-control.pull-threshold-for-queue", Integer.class, 1000, PROPERTIES,
			ContainerOptions::pullThresholdForQueue, OptionBounds.between(1, Integer.MAX_VALUE),
			"How many buffered messages of a partition stop fetching it.");

	/** A size in bytes (a {@code DataSize} property: every {@code Long} option is one). */
	public static final OptionDescriptor<Long> PULL_THRESHOLD_SIZE_FOR_QUEUE = new OptionDescriptor<>(
			"flow-control.pull-threshold-size-for-queue", Long.class, 100L * 1024 * 1024, PROPERTIES,
			ContainerOptions::pullThresholdSizeForQueue, OptionBounds.between(1, Long.MAX_VALUE),
			"How many buffered bytes of a partition stop fetching it.");

	public static final OptionDescriptor<Integer> MAX_SPAN = new OptionDescriptor<>("flow-control.max-span",
			Integer.class, 2000, PROPERTIES, ContainerOptions::maxSpan, OptionBounds.between(1, Integer.MAX_VALUE),
			"How wide the offset span of a partition's unfinished work may grow before fetching stops "
					+ "('unordered' and 'key' ordering).");

	public static final OptionDescriptor<Integer> PULL_THRESHOLD_FOR_CONTAINER = new OptionDescriptor<>(
			"flow-control.pull-threshold-for-container", Integer.class, 50_000, PROPERTIES,
			ContainerOptions::pullThresholdForContainer, OptionBounds.between(1, Integer.MAX_VALUE),
			"How many buffered messages of the whole container, over all its partitions, stop fetching the "
					+ "partitions that hold more than their share (this divided by the partitions assigned).");

	/** A size in bytes, like {@link #PULL_THRESHOLD_SIZE_FOR_QUEUE}. */
	public static final OptionDescriptor<Long> PULL_THRESHOLD_SIZE_FOR_CONTAINER = new OptionDescriptor<>(
			"flow-control.pull-threshold-size-for-container", Long.class, 64L * 1024 * 1024, PROPERTIES,
			ContainerOptions::pullThresholdSizeForContainer, OptionBounds.between(1, Long.MAX_VALUE),
			"How many buffered bytes of the whole container, over all its partitions, stop fetching the "
					+ "partitions that hold more than their share (this divided by the partitions assigned).");

	public static final OptionDescriptor<Duration> SUSPEND = new OptionDescriptor<>("flow-control.suspend",
			Duration.class, Duration.ofMillis(50), PROPERTIES, ContainerOptions::suspend, OptionBounds::notNegative,
			"How long a partition stopped by flow control waits before it is looked at again.");

	public static final OptionDescriptor<Duration> COMMIT_INTERVAL = new OptionDescriptor<>("commit.interval",
			Duration.class, Duration.ofMillis(100), PROPERTIES, ContainerOptions::commitInterval,
			OptionBounds::notNegative, "How long at least between two commits of a container; 0 commits after "
					+ "each finished thread batch.");

	public static final OptionDescriptor<Integer> RETRY_MAX_ATTEMPTS = new OptionDescriptor<>("retry.max-attempts",
			Integer.class, 3, PROPERTIES, ContainerOptions::retryMaxAttempts, OptionBounds.between(1, 1_000),
			"How many times a message is delivered before it is dead-lettered.");

	public static final OptionDescriptor<Duration> RETRY_BACKOFF = new OptionDescriptor<>("retry.backoff",
			Duration.class, Duration.ofMillis(100), PROPERTIES, ContainerOptions::retryBackoff,
			OptionBounds::notNegative, "How long to wait before the first retry.");

	public static final OptionDescriptor<Double> RETRY_MULTIPLIER = new OptionDescriptor<>("retry.multiplier",
			Double.class, 2.0, PROPERTIES, ContainerOptions::retryMultiplier, OptionBounds.between(1.0, 100.0),
			"How much the wait grows after each retry.");

	public static final OptionDescriptor<Duration> RETRY_MAX_BACKOFF = new OptionDescriptor<>("retry.max-backoff",
			Duration.class, Duration.ofSeconds(10), PROPERTIES, ContainerOptions::retryMaxBackoff,
			OptionBounds::notNegative, "How long to wait at most between two retries.");

	public static final OptionDescriptor<Boolean> DEAD_LETTER_ENABLED = new OptionDescriptor<>("dead-letter.enabled",
			Boolean.class, true, PROPERTIES, ContainerOptions::deadLetterEnabled, OptionBounds::set,
			"Whether failed messages are dead-lettered (Kafka: topic '<topic>.DLQ'; JDBC: the dead-letter table); "
					+ "otherwise they are logged and skipped.");

	public static final OptionDescriptor<Duration> SHUTDOWN_TIMEOUT = new OptionDescriptor<>("shutdown-timeout",
			Duration.class, Duration.ofSeconds(30), PROPERTIES, ContainerOptions::shutdownTimeout,
			OptionBounds::notNegative, "How long to wait for in-flight work on revoke and on stop.");

	public static final OptionDescriptor<Duration> POLL_TIMEOUT = new OptionDescriptor<>("poll-timeout",
			Duration.class, Duration.ofMillis(500), EnumSet.noneOf(Level.class), ContainerOptions::pollTimeout,
			OptionBounds::notNegative, "The longest a poll blocks when nothing else is due; set in code only.");

	public static final OptionDescriptor<String> TAGS = new OptionDescriptor<>("tags", String.class, "*",
			EnumSet.of(Level.ANNOTATION, Level.LISTENER), ContainerOptions::tags, TagExpression::problem,
			"Tag subscription in RocketMQ's syntax ('created || paid'); '*' or empty accepts every message. "
					+ "Other messages are finished without calling the listener and counted as "
					+ "'batch.consumer.messages{outcome=filtered}'.");

	public static final OptionDescriptor<Duration> DELAY = new OptionDescriptor<>("delay", Duration.class,
			Duration.ZERO, PROPERTIES, ContainerOptions::delay, OptionBounds::notNegative,
			"How long after its timestamp a message reaches the listener at the earliest; 0 delivers at once. "
					+ "A partition waits for its head without holding a thread.");

	public static final OptionDescriptor<Duration> RETRY_BLOCKING_LIMIT = new OptionDescriptor<>("retry.blocking-limit",
			Duration.class, Duration.ofSeconds(1), PROPERTIES, ContainerOptions::retryBlockingLimit,
			OptionBounds::notNegative, "A retry whose back-off is longer goes to the transport's retry queue (JDBC: "
					+ "the schedule table) instead of waiting on its worker; needs ordering 'unordered'.");

	public static final OptionDescriptor<String> RETRY_LEVELS = new OptionDescriptor<>("retry.levels", String.class, "",
			PROPERTIES, ContainerOptions::retryLevels, OptionBounds::levels, "Back-offs by retry, comma-separated, "
					+ "like RocketMQ's delay levels ('1s,5s,10s,30s,1m,2m'); the last one repeats. Empty: "
					+ "exponential from 'backoff'.");

	public static final OptionDescriptor<List<String>> RETRY_NOT_RETRYABLE = new OptionDescriptor<>(
			"retry.not-retryable", LIST, List.of(), PROPERTIES, ContainerOptions::retryNotRetryable,
			OptionBounds::throwableClasses, "Exception classes (fully qualified names) that are never retried: a "
					+ "message failed by one of them, by a subclass, or by an exception caused by one, goes to the "
					+ "dead letter at once.");

	public static final OptionDescriptor<Duration> ASYNC_TIMEOUT = new OptionDescriptor<>("async.timeout",
			Duration.class, Duration.ofSeconds(30), PROPERTIES, ContainerOptions::asyncTimeout, OptionBounds::positive,
			"How long an asynchronous listener's CompletionStage may take to complete; one that takes longer "
					+ "fails its messages, which are retried like any failure.");

	public static final OptionDescriptor<Integer> CONSUMER_BATCH_MIN_SIZE = new OptionDescriptor<>(
			"consumer-batch-min-size", Integer.class, 1, PROPERTIES, ContainerOptions::consumerBatchMinSize,
			OptionBounds.between(1, 1_000_000), "How many messages a batch waits for at least, for at most "
					+ "'consumer-batch-max-wait', holding no thread; 1 hands out what is there at once.");

	public static final OptionDescriptor<Duration> CONSUMER_BATCH_MAX_WAIT = new OptionDescriptor<>(
			"consumer-batch-max-wait", Duration.class, Duration.ZERO, PROPERTIES,
			ContainerOptions::consumerBatchMaxWait, OptionBounds::notNegative, "How long a batch waits at most "
					+ "for 'consumer-batch-min-size' messages (or 'consumer-batch-max-bytes'); 0 does not wait.");

	/** A size in bytes, like {@link #PULL_THRESHOLD_SIZE_FOR_QUEUE}; 0 for no bound. */
	public static final OptionDescriptor<Long> CONSUMER_BATCH_MAX_BYTES = new OptionDescriptor<>(
			"consumer-batch-max-bytes", Long.class, 0L, PROPERTIES, ContainerOptions::consumerBatchMaxBytes,
			OptionBounds.between(0, Long.MAX_VALUE), "How many bytes of messages a list listener gets per call "
					+ "at most (a larger message comes alone); 0 for no bound.");

	public static final OptionDescriptor<Integer> RATE_LIMIT = new OptionDescriptor<>("rate-limit", Integer.class, 0,
			EVERY_LEVEL, ContainerOptions::rateLimit, OptionBounds.between(0, 1_000_000_000),
			"How many messages per second the listener gets at most, over all its threads; 0 for no limit. "
					+ "Messages held back wait in the buffer, holding no thread.");

	public static final OptionDescriptor<Integer> RATE_LIMIT_PER_KEY = new OptionDescriptor<>("rate-limit-per-key",
			Integer.class, 0, EVERY_LEVEL, ContainerOptions::rateLimitPerKey, OptionBounds.between(0, 1_000_000_000),
			"How many messages per second each message key gets at most; 0 for no limit. A key's messages "
					+ "beyond it wait, holding no thread, while other keys' messages go on.");

	private static final List<OptionDescriptor<?>> ALL = List.of(ID, TOPICS, GROUP, MODE, THREAD_SIZE,
			CONSUMER_BATCH_SIZE, PULL_BATCH_SIZE, PULL_INTERVAL, ORDERING, PULL_THRESHOLD_FOR_QUEUE,
			PULL_THRESHOLD_SIZE_FOR_QUEUE, MAX_SPAN, PULL_THRESHOLD_FOR_CONTAINER, PULL_THRESHOLD_SIZE_FOR_CONTAINER,
			SUSPEND, COMMIT_INTERVAL, RETRY_MAX_ATTEMPTS, RETRY_BACKOFF, RETRY_MULTIPLIER, RETRY_MAX_BACKOFF,
			DEAD_LETTER_ENABLED, SHUTDOWN_TIMEOUT, POLL_TIMEOUT, TAGS, DELAY, RETRY_BLOCKING_LIMIT, RETRY_LEVELS,
			RETRY_NOT_RETRYABLE, ASYNC_TIMEOUT, CONSUMER_BATCH_MIN_SIZE, CONSUMER_BATCH_MAX_WAIT,
			CONSUMER_BATCH_MAX_BYTES, RATE_LIMIT, RATE_LIMIT_PER_KEY);

	private final String key;

	private final Class<T> type;

	private final T defaultValue;

	private final Set<Level> levels;

	private final Function<ContainerOptions, T> reader;

	private final OptionBounds.Check<T> check;

	private final String description;

	OptionDescriptor(String key, Class<T> type, T defaultValue, Set<Level> levels,
			Function<ContainerOptions, T> reader, OptionBounds.Check<T> check, String description) {
		this.key = key;
		this.type = type;
		this.defaultValue = defaultValue;
		this.levels = Set.copyOf(levels);
		this.reader = reader;
		this.check = check;
		this.description = description;
	}

	/**
	 * Every option of {@link ContainerOptions}, in the order of its components. Adding one:
	 * docs/configuration.md lists every place and the test that fails when one is missed.
	 * @return the table
	 */
	public static List<OptionDescriptor<?>> all() {
		return ALL;
	}

	/**
	 * The key, spelled like the properties: {@code thread-size}, {@code retry.max-attempts}.
	 * @return the key
	 */
	public String key() {
		return this.key;
	}

	/**
	 * The name of the {@code @BatchListener} attribute: the key in camel case.
	 * @return the attribute name, for example {@code threadSize}
	 */
	public String attributeName() {
		return OptionSpellings.camelCase(this.key);
	}

	/**
	 * What the option does, for people: the IDE shows it for the property (the property's field
	 * Javadoc, which a test of the starter holds equal to it).
	 * @return the description
	 */
	public String description() {
		return this.description;
	}

	/**
	 * The type of the value.
	 * @return the type
	 */
	public Class<T> type() {
		return this.type;
	}

	/**
	 * The default value, the only place it is written.
	 * @return the default, {@code null} when there is none
	 */
	public T defaultValue() {
		return this.defaultValue;
	}

	/**
	 * Whether a value may be set at the given level.
	 * @param level the level
	 * @return {@code true} when it may
	 */
	public boolean isSettableAt(Level level) {
		return this.levels.contains(level);
	}

	/**
	 * Reads this option from built options.
	 * @param options the options
	 * @return the value
	 * @throws UnsupportedOperationException for an option the engine does not read
	 */
	public T read(ContainerOptions options) {
		if (this.reader == null) {
			throw new UnsupportedOperationException(this.key + " is not an option of ContainerOptions");
		}
		return this.reader.apply(options);
	}

	/**
	 * Converts a value as it was written (text from an annotation, or a bound property) to the
	 * option's type.
	 * @param raw the value, possibly text
	 * @return the typed value; for {@code null}, an empty list for a list option, else {@code null}
	 * @throws InvalidOptionException when the value cannot be converted
	 */
	public T convert(Object raw) {
		return this.type.cast(OptionBounds.convert(this, raw));
	}

	/**
	 * Checks a value against the option's bounds.
	 * @param value the value
	 * @throws InvalidOptionException naming this option when the value is not allowed
	 */
	public void validate(T value) {
		String reason = this.check.problem(value);
		if (reason != null) {
			throw invalid(reason);
		}
	}

	public void validateAny(Object value) {
		validate(this.type.cast(value));
	}

	/**
	 * An exception that names this option.
	 * @param reason what is wrong
	 * @return the exception
	 */
	public InvalidOptionException invalid(String reason) {
		return new InvalidOptionException(this.key, reason);
	}

	/**
	 * An exception that names this option, for a reason that names others by their keys.
	 * @param reason what is wrong
	 * @param mentioned the other options the reason names
	 * @return the exception
	 */
	public InvalidOptionException invalid(String reason, OptionDescriptor<?>... mentioned) {
		return new InvalidOptionException(this.key, reason,
				Arrays.stream(mentioned).map(OptionDescriptor::key).toList());
	}

	@Override
	public String toString() {
		return this.key;
	}

}

package io.batchconsumer.core;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.batchconsumer.core.options.OptionBounds;
import io.batchconsumer.core.options.ThrowableTypes;
import io.batchconsumer.core.options.OptionDescriptor;

/**
 * Everything a container is configured with. Built with {@link #builder(String)}, which takes
 * every default and every bound from the table of {@link OptionDescriptor}s and rejects a bad value
 * with an {@link InvalidOptionException} that carries the option's key ({@code thread-size},
 * {@code flow-control.max-span}, ...).
 *
 * <p>Defaults (10 threads, slices of 10, pulls of 32, key ordering, ...; docs/configuration.md) are
 * written once, in {@link OptionDescriptor}.
 *
 * @param id the container id, used in thread names and meters
 * @param topics the topics to consume
 * @param group the consumer group
 * @param mode clustering or broadcast
 * @param threadSize worker threads
 * @param consumerBatchSize the most messages in a slice
 * @param pullBatchSize the most messages one poll returns
 * @param pullInterval the pause between polls
 * @param ordering the ordering kept within a partition
 * @param pullThresholdForQueue buffered messages per partition above which fetching stops
 * @param pullThresholdSizeForQueue buffered bytes per partition above which fetching stops
 * @param maxSpan the offset span of a partition's unfinished work above which fetching stops
 * @param pullThresholdForContainer buffered messages of the whole container above which the partitions
 *        holding more than their share stop fetching
 * @param pullThresholdSizeForContainer buffered bytes of the whole container above which the partitions
 *        holding more than their share stop fetching
 * @param suspend how long a partition stays paused by flow control before it is looked at again
 * @param commitInterval the least time between two commits of a busy partition (an idle one is committed
 *        after 1/100 of it, at least 5 ms); zero commits after each finished batch
 * @param retryMaxAttempts delivery attempts before a message is dead-lettered
 * @param retryBackoff the wait before the first retry
 * @param retryMultiplier the factor applied to the wait after each retry
 * @param retryMaxBackoff the longest wait between retries
 * @param deadLetterEnabled whether failed messages are dead-lettered (otherwise logged and skipped)
 * @param shutdownTimeout how long to wait for in-flight work on revoke and stop
 * @param pollTimeout the longest a poll blocks when nothing else is due
 * @param tags the tag subscription ({@link TagExpression} syntax); {@code *} accepts every message
 * @param delay how long after its timestamp a message reaches the listener at the earliest
 * @param retryBlockingLimit a retry whose back-off is longer goes to the retry queue, when the
 *        transport has one, instead of waiting on its worker
 * @param retryLevels back-offs by retry, comma-separated ({@code 1s,5s,10s}); empty for exponential
 * @param retryNotRetryable names of exception classes that are never retried (their subclasses and
 *        the exceptions they caused neither): a message they fail goes to the dead letter at once
 * @param asyncTimeout how long an asynchronous listener's stage may take to complete before its
 *        messages fail
 * @param consumerBatchMinSize the least messages a batch waits for, up to {@code consumerBatchMaxWait}
 * @param consumerBatchMaxWait the longest a batch waits for {@code consumerBatchMinSize} messages
 * @param consumerBatchMaxBytes the most bytes of messages in a listener call; 0 for no bound
 * @param rateLimit the most messages per second handed to the listener; 0 for no limit
 * @param rateLimitPerKey the most messages per second handed to the listener for each message key; 0 for
 *        no limit
 */
public record ContainerOptions(String id, List<String> topics, String group, ConsumptionMode mode, int threadSize,
		int consumerBatchSize, int pullBatchSize, Duration pullInterval, Ordering ordering, int pullThresholdForQueue,
		long pullThresholdSizeForQueue, int maxSpan, int pullThresholdForContainer, long pullThresholdSizeForContainer,
		Duration suspend, Duration commitInterval, int retryMaxAttempts, Duration retryBackoff, double retryMultiplier,
		Duration retryMaxBackoff, boolean deadLetterEnabled, Duration shutdownTimeout, Duration pollTimeout,
		String tags, Duration delay, Duration retryBlockingLimit, String retryLevels,
		List<String> retryNotRetryable, Duration asyncTimeout, int consumerBatchMinSize,
		Duration consumerBatchMaxWait, long consumerBatchMaxBytes, int rateLimit,
		int rateLimitPerKey) {

	/**
	 * Starts a builder with every default.
	 * @param id the container id: letters, digits, '.', '_' or '-'
	 * @return the builder
	 */
	public static Builder builder(String id) {
		return new Builder(id);
	}

	/**
	 * A builder that starts from these options.
	 * @return the builder
	 */
	public Builder toBuilder() {
		return new Builder(this);
	}

	/**
	 * The wait before the given retry.
	 * @param retry 1 for the first retry
	 * @return the back-off, never above {@link #retryMaxBackoff()}
	 */
	public Duration backoffBefore(int retry) {
		if (!this.retryLevels.isBlank()) {
			List<Duration> levels = OptionBounds.parseLevels(this.retryLevels);
			return levels.get(Math.min(Math.max(1, retry), levels.size()) - 1);
		}
		double millis = this.retryBackoff.toMillis() * Math.pow(this.retryMultiplier, Math.max(0, retry - 1));
		return (millis >= this.retryMaxBackoff.toMillis()) ? this.retryMaxBackoff : Duration.ofMillis((long) millis);
	}

	/**
	 * Whether some retry before the last attempt backs off longer than
	 * {@link #retryBlockingLimit()}, so that a transport's retry queue is used.
	 * @return {@code true} when it does
	 */
	public boolean usesRetryQueue() {
		for (int retry = 1; retry < this.retryMaxAttempts; retry++) {
			if (backoffBefore(retry).compareTo(this.retryBlockingLimit) > 0) {
				return true;
			}
		}
		return false;
	}

	/**
	 * The exception classes {@link #retryNotRetryable()} names, loaded.
	 * @return the classes, in the order named
	 * @throws InvalidOptionException naming {@code retry.not-retryable} when one cannot be loaded
	 */
	public List<Class<? extends Throwable>> notRetryableTypes() {
		return this.retryNotRetryable.stream().<Class<? extends Throwable>>map(ThrowableTypes::load).toList();
	}

	/**
	 * The tag subscription, parsed.
	 * @return the expression
	 */
	public TagExpression tagExpression() {
		return TagExpression.parse(this.tags);
	}

	/**
	 * Builds {@link ContainerOptions}: a value per {@link OptionDescriptor}, each starting at its
	 * default. Threading: not thread-safe.
	 */
	public static final class Builder {

		private final Map<OptionDescriptor<?>, Object> values = new LinkedHashMap<>();

		private Builder(String id) {
			for (OptionDescriptor<?> option : OptionDescriptor.all()) {
				this.values.put(option, option.defaultValue());
			}
			this.values.put(OptionDescriptor.ID, id);
		}

		private Builder(ContainerOptions options) {
			for (OptionDescriptor<?> option : OptionDescriptor.all()) {
				this.values.put(option, option.read(options));
			}
		}

		/**
		 * Sets one option.
		 * @param option the option
		 * @param value its value
		 * @param <T> the type of the value
		 * @return this builder
		 */
		public <T> Builder set(OptionDescriptor<T> option, T value) {
			this.values.put(option, value);
			return this;
		}

		/**
		 * The value an option has in this builder.
		 * @param option the option
		 * @param <T> the type of the value
		 * @return the value
		 */
		public <T> T get(OptionDescriptor<T> option) {
			return option.type().cast(this.values.get(option));
		}

		public Builder topics(String... topics) { return topics(List.of(topics)); }

		public Builder topics(List<String> topics) { return set(OptionDescriptor.TOPICS, List.copyOf(topics)); }

		public Builder group(String group) { return set(OptionDescriptor.GROUP, group); }

		public Builder mode(ConsumptionMode mode) { return set(OptionDescriptor.MODE, mode); }

		public Builder threadSize(int threadSize) { return set(OptionDescriptor.THREAD_SIZE, threadSize); }

		public Builder consumerBatchSize(int size) { return set(OptionDescriptor.CONSUMER_BATCH_SIZE, size); }

		public Builder pullBatchSize(int size) { return set(OptionDescriptor.PULL_BATCH_SIZE, size); }

		public Builder pullInterval(Duration interval) { return set(OptionDescriptor.PULL_INTERVAL, interval); }

		public Builder ordering(Ordering ordering) { return set(OptionDescriptor.ORDERING, ordering); }

		public Builder pullThresholdForQueue(int count) { return set(OptionDescriptor.PULL_THRESHOLD_FOR_QUEUE, count); }

		public Builder pullThresholdSizeForQueue(long bytes) { return set(OptionDescriptor.PULL_THRESHOLD_SIZE_FOR_QUEUE, bytes); }

		public Builder maxSpan(int span) { return set(OptionDescriptor.MAX_SPAN, span); }

		public Builder pullThresholdForContainer(int count) { return set(OptionDescriptor.PULL_THRESHOLD_FOR_CONTAINER, count); }

		public Builder pullThresholdSizeForContainer(long bytes) { return set(OptionDescriptor.PULL_THRESHOLD_SIZE_FOR_CONTAINER, bytes); }

		public Builder suspend(Duration suspend) { return set(OptionDescriptor.SUSPEND, suspend); }

		public Builder commitInterval(Duration interval) { return set(OptionDescriptor.COMMIT_INTERVAL, interval); }

		public Builder retryMaxAttempts(int attempts) { return set(OptionDescriptor.RETRY_MAX_ATTEMPTS, attempts); }

		public Builder retryBackoff(Duration backoff) { return set(OptionDescriptor.RETRY_BACKOFF, backoff); }

		public Builder retryMultiplier(double multiplier) { return set(OptionDescriptor.RETRY_MULTIPLIER, multiplier); }

		public Builder retryMaxBackoff(Duration max) { return set(OptionDescriptor.RETRY_MAX_BACKOFF, max); }

		public Builder deadLetterEnabled(boolean enabled) { return set(OptionDescriptor.DEAD_LETTER_ENABLED, enabled); }

		public Builder shutdownTimeout(Duration timeout) { return set(OptionDescriptor.SHUTDOWN_TIMEOUT, timeout); }

		public Builder pollTimeout(Duration timeout) { return set(OptionDescriptor.POLL_TIMEOUT, timeout); }

		public Builder tags(String expression) { return set(OptionDescriptor.TAGS, expression); }

		public Builder delay(Duration delay) { return set(OptionDescriptor.DELAY, delay); }

		public Builder retryBlockingLimit(Duration limit) { return set(OptionDescriptor.RETRY_BLOCKING_LIMIT, limit); }

		public Builder retryLevels(String levels) { return set(OptionDescriptor.RETRY_LEVELS, levels); }

		public Builder retryNotRetryable(List<String> classNames) { return set(OptionDescriptor.RETRY_NOT_RETRYABLE, classNames); }

		public Builder asyncTimeout(Duration timeout) { return set(OptionDescriptor.ASYNC_TIMEOUT, timeout); }

		@SafeVarargs
		public final Builder retryNotRetryable(Class<? extends Throwable>... types) {
			return retryNotRetryable(java.util.Arrays.stream(types).map(Class::getName).toList());
		}

		public Builder consumerBatchMinSize(int size) { return set(OptionDescriptor.CONSUMER_BATCH_MIN_SIZE, size); }

		public Builder consumerBatchMaxWait(Duration wait) { return set(OptionDescriptor.CONSUMER_BATCH_MAX_WAIT, wait); }

		public Builder consumerBatchMaxBytes(long bytes) { return set(OptionDescriptor.CONSUMER_BATCH_MAX_BYTES, bytes); }

		public Builder rateLimit(int perSecond) { return set(OptionDescriptor.RATE_LIMIT, perSecond); }

		public Builder rateLimitPerKey(int perSecond) { return set(OptionDescriptor.RATE_LIMIT_PER_KEY, perSecond); }

		/**
		 * Validates every option against its bounds, then the rules between options, and
		 * builds.
		 * @return the options
		 * @throws InvalidOptionException naming the first bad option and its allowed range
		 */
		public ContainerOptions build() {
			this.values.forEach(OptionDescriptor::validateAny);
			Duration backoff = get(OptionDescriptor.RETRY_BACKOFF);
			Duration maxBackoff = get(OptionDescriptor.RETRY_MAX_BACKOFF);
			if (maxBackoff.compareTo(backoff) < 0) {
				throw OptionDescriptor.RETRY_MAX_BACKOFF.invalid("(" + maxBackoff
						+ ") must not be less than retry.backoff (" + backoff + ")", OptionDescriptor.RETRY_BACKOFF);
			}
			BatchFillRules.check(this::get);
			return new ContainerOptions(get(OptionDescriptor.ID), get(OptionDescriptor.TOPICS),
					get(OptionDescriptor.GROUP), get(OptionDescriptor.MODE), get(OptionDescriptor.THREAD_SIZE),
					get(OptionDescriptor.CONSUMER_BATCH_SIZE), get(OptionDescriptor.PULL_BATCH_SIZE),
					get(OptionDescriptor.PULL_INTERVAL), get(OptionDescriptor.ORDERING),
					get(OptionDescriptor.PULL_THRESHOLD_FOR_QUEUE), get(OptionDescriptor.PULL_THRESHOLD_SIZE_FOR_QUEUE),
					get(OptionDescriptor.MAX_SPAN), get(OptionDescriptor.PULL_THRESHOLD_FOR_CONTAINER),
					get(OptionDescriptor.PULL_THRESHOLD_SIZE_FOR_CONTAINER), get(OptionDescriptor.SUSPEND),
					get(OptionDescriptor.COMMIT_INTERVAL),
					get(OptionDescriptor.RETRY_MAX_ATTEMPTS), get(OptionDescriptor.RETRY_BACKOFF),
					get(OptionDescriptor.RETRY_MULTIPLIER), get(OptionDescriptor.RETRY_MAX_BACKOFF),
					get(OptionDescriptor.DEAD_LETTER_ENABLED), get(OptionDescriptor.SHUTDOWN_TIMEOUT),
					get(OptionDescriptor.POLL_TIMEOUT), get(OptionDescriptor.TAGS), get(OptionDescriptor.DELAY),
					get(OptionDescriptor.RETRY_BLOCKING_LIMIT), get(OptionDescriptor.RETRY_LEVELS),
					notRetryable(get(OptionDescriptor.RETRY_NOT_RETRYABLE)), get(OptionDescriptor.ASYNC_TIMEOUT),
					get(OptionDescriptor.CONSUMER_BATCH_MIN_SIZE), get(OptionDescriptor.CONSUMER_BATCH_MAX_WAIT),
					get(OptionDescriptor.CONSUMER_BATCH_MAX_BYTES), get(OptionDescriptor.RATE_LIMIT),
					get(OptionDescriptor.RATE_LIMIT_PER_KEY));
		}

		/** An unset list (a property bound empty reads as unset) is the empty list. */
		private static List<String> notRetryable(List<String> classNames) {
			return (classNames != null) ? List.copyOf(classNames) : List.of();
		}

	}

}

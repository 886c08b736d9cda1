package io.batchconsumer.core;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Everything a container is configured with. Built with {@link #builder(String)}, which rejects
 * bad values with a message that names the option the way the properties spell it
 * ({@code thread-size}, {@code flow-control.max-span}, ...).
 *
 * <p>Defaults: 10 threads, slices of 10, pulls of 32, key ordering,
 * flow control at 1000 messages, 100 MiB or a span of 2000 per partition, commits at most
 * once a second, 3 attempts with back-off from 100 ms doubling to 10 s, dead letters on,
 * 30 s to drain.
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
 * @param suspend how long a partition stays paused by flow control before it is looked at again
 * @param commitInterval the least time between two commits; zero commits after each finished batch
 * @param retryMaxAttempts delivery attempts before a message is dead-lettered
 * @param retryBackoff the wait before the first retry
 * @param retryMultiplier the factor applied to the wait after each retry
 * @param retryMaxBackoff the longest wait between retries
 * @param deadLetterEnabled whether failed messages are dead-lettered (otherwise logged and skipped)
 * @param shutdownTimeout how long to wait for in-flight work on revoke and stop
 * @param pollTimeout the longest a poll blocks when nothing else is due
 */
public record ContainerOptions(String id, List<String> topics, String group, ConsumptionMode mode, int threadSize,
		int consumerBatchSize, int pullBatchSize, Duration pullInterval, Ordering ordering, int pullThresholdForQueue,
		long pullThresholdSizeForQueue, int maxSpan, Duration suspend, Duration commitInterval, int retryMaxAttempts,
		Duration retryBackoff, double retryMultiplier, Duration retryMaxBackoff, boolean deadLetterEnabled,
		Duration shutdownTimeout, Duration pollTimeout) {

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
		double millis = this.retryBackoff.toMillis() * Math.pow(this.retryMultiplier, Math.max(0, retry - 1));
		return (millis >= this.retryMaxBackoff.toMillis()) ? this.retryMaxBackoff : Duration.ofMillis((long) millis);
	}

	/**
	 * Builds {@link ContainerOptions}. Threading: not thread-safe.
	 */
	public static final class Builder {

		private String id;

		private List<String> topics = List.of();

		private String group = "default";

		private ConsumptionMode mode = ConsumptionMode.CLUSTERING;

		private int threadSize = 10;

		private int consumerBatchSize = 10;

		private int pullBatchSize = 32;

		private Duration pullInterval = Duration.ZERO;

		private Ordering ordering = Ordering.KEY;

		private int pullThresholdForQueue = 1000;

		private long pullThresholdSizeForQueue = 100L * 1024 * 1024;

		private int maxSpan = 2000;

		private Duration suspend = Duration.ofMillis(50);

		private Duration commitInterval = Duration.ofSeconds(1);

		private int retryMaxAttempts = 3;

		private Duration retryBackoff = Duration.ofMillis(100);

		private double retryMultiplier = 2.0;

		private Duration retryMaxBackoff = Duration.ofSeconds(10);

		private boolean deadLetterEnabled = true;

		private Duration shutdownTimeout = Duration.ofSeconds(30);

		private Duration pollTimeout = Duration.ofMillis(500);

		private Builder(String id) {
			this.id = id;
		}

		private Builder(ContainerOptions o) {
			this.id = o.id; this.topics = o.topics; this.group = o.group; this.mode = o.mode;
			this.threadSize = o.threadSize; this.consumerBatchSize = o.consumerBatchSize;
			this.pullBatchSize = o.pullBatchSize; this.pullInterval = o.pullInterval; this.ordering = o.ordering;
			this.pullThresholdForQueue = o.pullThresholdForQueue;
			this.pullThresholdSizeForQueue = o.pullThresholdSizeForQueue; this.maxSpan = o.maxSpan;
			this.suspend = o.suspend; this.commitInterval = o.commitInterval;
			this.retryMaxAttempts = o.retryMaxAttempts; this.retryBackoff = o.retryBackoff;
			this.retryMultiplier = o.retryMultiplier; this.retryMaxBackoff = o.retryMaxBackoff;
			this.deadLetterEnabled = o.deadLetterEnabled; this.shutdownTimeout = o.shutdownTimeout;
			this.pollTimeout = o.pollTimeout;
		}

		public Builder topics(String... topics) { return topics(List.of(topics)); }

		public Builder topics(List<String> topics) { this.topics = List.copyOf(topics); return this; }

		public Builder group(String group) { this.group = group; return this; }

		public Builder mode(ConsumptionMode mode) { this.mode = mode; return this; }

		public Builder threadSize(int threadSize) { this.threadSize = threadSize; return this; }

		public Builder consumerBatchSize(int size) { this.consumerBatchSize = size; return this; }

		public Builder pullBatchSize(int size) { this.pullBatchSize = size; return this; }

		public Builder pullInterval(Duration interval) { this.pullInterval = interval; return this; }

		public Builder ordering(Ordering ordering) { this.ordering = ordering; return this; }

		public Builder pullThresholdForQueue(int count) { this.pullThresholdForQueue = count; return this; }

		public Builder pullThresholdSizeForQueue(long bytes) { this.pullThresholdSizeForQueue = bytes; return this; }

		public Builder maxSpan(int span) { this.maxSpan = span; return this; }

		public Builder suspend(Duration suspend) { this.suspend = suspend; return this; }

		public Builder commitInterval(Duration interval) { this.commitInterval = interval; return this; }

		public Builder retryMaxAttempts(int attempts) { this.retryMaxAttempts = attempts; return this; }

		public Builder retryBackoff(Duration backoff) { this.retryBackoff = backoff; return this; }

		public Builder retryMultiplier(double multiplier) { this.retryMultiplier = multiplier; return this; }

		public Builder retryMaxBackoff(Duration max) { this.retryMaxBackoff = max; return this; }

		public Builder deadLetterEnabled(boolean enabled) { this.deadLetterEnabled = enabled; return this; }

		public Builder shutdownTimeout(Duration timeout) { this.shutdownTimeout = timeout; return this; }

		public Builder pollTimeout(Duration timeout) { this.pollTimeout = timeout; return this; }

		/**
		 * Validates and builds.
		 * @return the options
		 * @throws IllegalArgumentException naming the first bad option and its allowed range
		 */
		public ContainerOptions build() {
			if (this.id == null || !this.id.matches("[A-Za-z0-9._-]+")) {
				throw new IllegalArgumentException("id must be letters, digits, '.', '_' or '-' but was '" + this.id + "'");
			}
			if (this.topics.isEmpty() || this.topics.stream().anyMatch((t) -> t == null || t.isBlank())) {
				throw new IllegalArgumentException("topics must name at least one topic, none blank, but was " + this.topics);
			}
			if (this.group == null || this.group.isBlank()) {
				throw new IllegalArgumentException("group must not be blank");
			}
			Objects.requireNonNull(this.mode, "mode");
			Objects.requireNonNull(this.ordering, "ordering");
			atLeast("thread-size", this.threadSize, 1, 10_000);
			atLeast("consumer-batch-size", this.consumerBatchSize, 1, 1_000_000);
			atLeast("pull-batch-size", this.pullBatchSize, 1, 1_000_000);
			atLeast("flow-control.pull-threshold-for-queue", this.pullThresholdForQueue, 1, Integer.MAX_VALUE);
			atLeast("flow-control.pull-threshold-size-for-queue", this.pullThresholdSizeForQueue, 1, Long.MAX_VALUE);
			atLeast("flow-control.max-span", this.maxSpan, 1, Integer.MAX_VALUE);
			atLeast("retry.max-attempts", this.retryMaxAttempts, 1, 1_000);
			notNegative("pull-interval", this.pullInterval);
			notNegative("flow-control.suspend", this.suspend);
			notNegative("commit.interval", this.commitInterval);
			notNegative("retry.backoff", this.retryBackoff);
			notNegative("retry.max-backoff", this.retryMaxBackoff);
			notNegative("shutdown-timeout", this.shutdownTimeout);
			notNegative("poll-timeout", this.pollTimeout);
			if (!(this.retryMultiplier >= 1.0 && this.retryMultiplier <= 100.0)) {
				throw new IllegalArgumentException("retry.multiplier must be between 1.0 and 100.0 but was " + this.retryMultiplier);
			}
			if (this.retryMaxBackoff.compareTo(this.retryBackoff) < 0) {
				throw new IllegalArgumentException("retry.max-backoff (" + this.retryMaxBackoff
						+ ") must not be less than retry.backoff (" + this.retryBackoff + ")");
			}
			return new ContainerOptions(this.id, this.topics, this.group, this.mode, this.threadSize,
					this.consumerBatchSize, this.pullBatchSize, this.pullInterval, this.ordering,
					this.pullThresholdForQueue, this.pullThresholdSizeForQueue, this.maxSpan, this.suspend,
					this.commitInterval, this.retryMaxAttempts, this.retryBackoff, this.retryMultiplier,
					this.retryMaxBackoff, this.deadLetterEnabled, this.shutdownTimeout, this.pollTimeout);
		}

		private static void atLeast(String option, long value, long min, long max) {
			if (value < min || value > max) {
				throw new IllegalArgumentException(option + " must be between " + min + " and " + max + " but was " + value);
			}
		}

		private static void notNegative(String option, Duration value) {
			if (value == null || value.isNegative()) {
				throw new IllegalArgumentException(option + " must be zero or more but was " + value);
			}
		}

	}

}

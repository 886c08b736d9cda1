package io.batchconsumer.spring.autoconfigure;

import java.time.Duration;

import org.springframework.util.unit.DataSize;

/**
 * The options of a listener container as properties, one type for both levels: the global
 * {@code batch-consumer.*} values ({@link BatchConsumerProperties} extends it) and the
 * per-listener {@code batch-consumer.listeners.<id>.*} overrides
 * ({@link BatchConsumerProperties.Listener} extends it). A value that is {@code null} is not set.
 * The global level starts with every default of the option table
 * ({@link io.batchconsumer.core.ContainerOption}), written nowhere else; a listener starts empty.
 *
 * <p>Threading: bound once at start-up, then only read.
 */
public class ContainerProperties {

	/**
	 * Consumer group of every listener. Defaults to 'spring.application.name', or
	 * 'batch-consumer' when that is not set.
	 */
	private String group;

	/**
	 * How instances share a topic: 'clustering' (each partition to one instance) or 'broadcast'
	 * (every instance gets every message).
	 */
	private String mode;

	/**
	 * How many worker threads each listener container runs.
	 */
	private Integer threadSize;

	/**
	 * How many messages a slice (one listener call) holds at most.
	 */
	private Integer consumerBatchSize;

	/**
	 * How many messages one pull fetches at most.
	 */
	private Integer pullBatchSize;

	/**
	 * How long to wait between two pulls.
	 */
	private Duration pullInterval;

	/**
	 * Which order is kept within a partition: 'unordered', 'key' (per message key) or 'partition'
	 * (one slice at a time per partition).
	 */
	private String ordering;

	/**
	 * Whether listener containers start with the application.
	 */
	private Boolean autoStartup;

	/**
	 * 'at-least-once' (the default) or 'exactly-once': the listener's database writes and its
	 * messages' completion marks commit in one transaction of the application's transaction manager.
	 */
	private String processing;

	/**
	 * How long to wait for in-flight work on revoke and on stop.
	 */
	private Duration shutdownTimeout;

	/**
	 * How long after its timestamp a message reaches the listener at the earliest; 0 delivers at
	 * once. A partition waits for its head without holding a thread.
	 */
	private Duration delay;

	private final FlowControl flowControl = new FlowControl();

	private final Commit commit = new Commit();

	private final Retry retry = new Retry();

	private final DeadLetter deadLetter = new DeadLetter();

	/**
	 * Creates the options of one level.
	 * @param withDefaults whether every option starts at its default (the global level) or unset
	 */
	protected ContainerProperties(boolean withDefaults) {
		if (withDefaults) {
			OptionTable.applyDefaults(this);
		}
	}

	public String getGroup() {
		return this.group;
	}

	public void setGroup(String group) {
		this.group = group;
	}

	public String getMode() {
		return this.mode;
	}

	public void setMode(String mode) {
		this.mode = mode;
	}

	public Integer getThreadSize() {
		return this.threadSize;
	}

	public void setThreadSize(Integer threadSize) {
		this.threadSize = threadSize;
	}

	public Integer getConsumerBatchSize() {
		return this.consumerBatchSize;
	}

	public void setConsumerBatchSize(Integer consumerBatchSize) {
		this.consumerBatchSize = consumerBatchSize;
	}

	public Integer getPullBatchSize() {
		return this.pullBatchSize;
	}

	public void setPullBatchSize(Integer pullBatchSize) {
		this.pullBatchSize = pullBatchSize;
	}

	public Duration getPullInterval() {
		return this.pullInterval;
	}

	public void setPullInterval(Duration pullInterval) {
		this.pullInterval = pullInterval;
	}

	public String getOrdering() {
		return this.ordering;
	}

	public void setOrdering(String ordering) {
		this.ordering = ordering;
	}

	public String getProcessing() {
		return this.processing;
	}

	public void setProcessing(String processing) {
		this.processing = processing;
	}

	public Boolean getAutoStartup() {
		return this.autoStartup;
	}

	public void setAutoStartup(Boolean autoStartup) {
		this.autoStartup = autoStartup;
	}

	public Duration getShutdownTimeout() {
		return this.shutdownTimeout;
	}

	public void setShutdownTimeout(Duration shutdownTimeout) {
		this.shutdownTimeout = shutdownTimeout;
	}

	public Duration getDelay() {
		return this.delay;
	}

	public void setDelay(Duration delay) {
		this.delay = delay;
	}

	public FlowControl getFlowControl() {
		return this.flowControl;
	}

	public Commit getCommit() {
		return this.commit;
	}

	public Retry getRetry() {
		return this.retry;
	}

	public DeadLetter getDeadLetter() {
		return this.deadLetter;
	}

	/**
	 * Flow control per partition (RocketMQ's thresholds).
	 */
	public static class FlowControl {

		/**
		 * How many buffered messages of a partition stop fetching it.
		 */
		private Integer pullThresholdForQueue;

		/**
		 * How many buffered bytes of a partition stop fetching it.
		 */
		private DataSize pullThresholdSizeForQueue;

		/**
		 * How wide the offset span of a partition's unfinished work may grow before fetching stops
		 * ('unordered' and 'key' ordering).
		 */
		private Integer maxSpan;

		/**
		 * How long a partition stopped by flow control waits before it is looked at again.
		 */
		private Duration suspend;

		public Integer getPullThresholdForQueue() {
			return this.pullThresholdForQueue;
		}

		public void setPullThresholdForQueue(Integer pullThresholdForQueue) {
			this.pullThresholdForQueue = pullThresholdForQueue;
		}

		public DataSize getPullThresholdSizeForQueue() {
			return this.pullThresholdSizeForQueue;
		}

		public void setPullThresholdSizeForQueue(DataSize pullThresholdSizeForQueue) {
			this.pullThresholdSizeForQueue = pullThresholdSizeForQueue;
		}

		public Integer getMaxSpan() {
			return this.maxSpan;
		}

		public void setMaxSpan(Integer maxSpan) {
			this.maxSpan = maxSpan;
		}

		public Duration getSuspend() {
			return this.suspend;
		}

		public void setSuspend(Duration suspend) {
			this.suspend = suspend;
		}

	}

	/**
	 * Commits of consumed positions.
	 */
	public static class Commit {

		/**
		 * How long at least between two commits of a container; 0 commits after each finished
		 * thread batch.
		 */
		private Duration interval;

		public Duration getInterval() {
			return this.interval;
		}

		public void setInterval(Duration interval) {
			this.interval = interval;
		}

	}

	/**
	 * Retries of failed messages, before the dead letter.
	 */
	public static class Retry {

		/**
		 * How many times a message is delivered before it is dead-lettered.
		 */
		private Integer maxAttempts;

		/**
		 * How long to wait before the first retry.
		 */
		private Duration backoff;

		/**
		 * How much the wait grows after each retry.
		 */
		private Double multiplier;

		/**
		 * How long to wait at most between two retries.
		 */
		private Duration maxBackoff;

		/**
		 * A retry whose back-off is longer goes to the transport's retry queue (JDBC: the schedule
		 * table) instead of waiting on its worker; needs ordering 'unordered'.
		 */
		private Duration blockingLimit;

		/**
		 * Back-offs by retry, comma-separated, like RocketMQ's delay levels ('1s,5s,10s,30s,1m,2m');
		 * the last one repeats. Empty: exponential from 'backoff'.
		 */
		private String levels;

		public Duration getBlockingLimit() {
			return this.blockingLimit;
		}

		public void setBlockingLimit(Duration blockingLimit) {
			this.blockingLimit = blockingLimit;
		}

		public String getLevels() {
			return this.levels;
		}

		public void setLevels(String levels) {
			this.levels = levels;
		}

		public Integer getMaxAttempts() {
			return this.maxAttempts;
		}

		public void setMaxAttempts(Integer maxAttempts) {
			this.maxAttempts = maxAttempts;
		}

		public Duration getBackoff() {
			return this.backoff;
		}

		public void setBackoff(Duration backoff) {
			this.backoff = backoff;
		}

		public Double getMultiplier() {
			return this.multiplier;
		}

		public void setMultiplier(Double multiplier) {
			this.multiplier = multiplier;
		}

		public Duration getMaxBackoff() {
			return this.maxBackoff;
		}

		public void setMaxBackoff(Duration maxBackoff) {
			this.maxBackoff = maxBackoff;
		}

	}

	/**
	 * Dead letters of messages that failed every attempt.
	 */
	public static class DeadLetter {

		/**
		 * Whether failed messages are dead-lettered (Kafka: topic '<topic>.DLQ'; JDBC: the
		 * dead-letter table); otherwise they are logged and skipped.
		 */
		private Boolean enabled;

		public Boolean getEnabled() {
			return this.enabled;
		}

		public void setEnabled(Boolean enabled) {
			this.enabled = enabled;
		}

	}

}

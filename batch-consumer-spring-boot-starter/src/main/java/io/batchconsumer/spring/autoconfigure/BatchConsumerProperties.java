package io.batchconsumer.spring.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;
import org.springframework.validation.annotation.Validated;

/**
 * Configuration of batch-consumer (prefix {@code batch-consumer}): the transport, the defaults of
 * every listener container and per-listener overrides under {@code batch-consumer.listeners.<id>}.
 *
 * <p>It validates itself when bound: a bad value fails start-up with a message naming the full
 * property and what is allowed.
 */
@ConfigurationProperties("batch-consumer")
@Validated
public class BatchConsumerProperties implements Validator {

	/**
	 * Whether the batch-consumer starter is on.
	 */
	private boolean enabled = true;

	/**
	 * Which transport stores the messages: 'jdbc' (the embedded default), 'kafka' or 'rocketmq'.
	 */
	private String transport = "jdbc";

	/**
	 * Consumer group of every listener. Defaults to 'spring.application.name', or
	 * 'batch-consumer' when that is not set.
	 */
	private String group;

	/**
	 * Id of this instance: the owner of its JDBC queue leases and, in broadcast mode, the key of its
	 * own offsets (Kafka group '<group>-<instance id>'). Give each instance a stable one when
	 * broadcast consumers must resume after a restart. Defaults to a random id for JDBC and to the
	 * host name for Kafka.
	 */
	private String instanceId;

	/**
	 * How instances share a topic: 'clustering' (each partition to one instance) or 'broadcast'
	 * (every instance gets every message).
	 */
	private String mode = "clustering";

	/**
	 * How many worker threads each listener container runs.
	 */
	private int threadSize = 10;

	/**
	 * How many messages a slice (one listener call) holds at most.
	 */
	private int consumerBatchSize = 10;

	/**
	 * How many messages one pull fetches at most.
	 */
	private int pullBatchSize = 32;

	/**
	 * How long to wait between two pulls.
	 */
	private Duration pullInterval = Duration.ZERO;

	/**
	 * Which order is kept within a partition: 'unordered', 'key' (per message key) or 'partition'
	 * (one slice at a time per partition).
	 */
	private String ordering = "key";

	/**
	 * Whether listener containers start with the application.
	 */
	private boolean autoStartup = true;

	/**
	 * How long to wait for in-flight work on revoke and on stop.
	 */
	private Duration shutdownTimeout = Duration.ofSeconds(30);

	private final FlowControl flowControl = new FlowControl();

	private final Commit commit = new Commit();

	private final Retry retry = new Retry();

	private final DeadLetter deadLetter = new DeadLetter();

	private final Health health = new Health();

	private final Metrics metrics = new Metrics();

	private final Jdbc jdbc = new Jdbc();

	/**
	 * Per-listener overrides, by listener id. Unset values fall back to the global ones.
	 */
	private final Map<String, Listener> listeners = new LinkedHashMap<>();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public String getTransport() {
		return this.transport;
	}

	public void setTransport(String transport) {
		this.transport = transport;
	}

	public String getGroup() {
		return this.group;
	}

	public void setGroup(String group) {
		this.group = group;
	}

	public String getInstanceId() {
		return this.instanceId;
	}

	public void setInstanceId(String instanceId) {
		this.instanceId = instanceId;
	}

	public String getMode() {
		return this.mode;
	}

	public void setMode(String mode) {
		this.mode = mode;
	}

	public int getThreadSize() {
		return this.threadSize;
	}

	public void setThreadSize(int threadSize) {
		this.threadSize = threadSize;
	}

	public int getConsumerBatchSize() {
		return this.consumerBatchSize;
	}

	public void setConsumerBatchSize(int consumerBatchSize) {
		this.consumerBatchSize = consumerBatchSize;
	}

	public int getPullBatchSize() {
		return this.pullBatchSize;
	}

	public void setPullBatchSize(int pullBatchSize) {
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

	public boolean isAutoStartup() {
		return this.autoStartup;
	}

	public void setAutoStartup(boolean autoStartup) {
		this.autoStartup = autoStartup;
	}

	public Duration getShutdownTimeout() {
		return this.shutdownTimeout;
	}

	public void setShutdownTimeout(Duration shutdownTimeout) {
		this.shutdownTimeout = shutdownTimeout;
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

	public Health getHealth() {
		return this.health;
	}

	public Metrics getMetrics() {
		return this.metrics;
	}

	public Jdbc getJdbc() {
		return this.jdbc;
	}

	public Map<String, Listener> getListeners() {
		return this.listeners;
	}

	/**
	 * Whether this validator checks the given type.
	 * @param type the type of the bound object
	 * @return {@code true} for {@link BatchConsumerProperties}
	 */
	@Override
	public boolean supports(Class<?> type) {
		return BatchConsumerProperties.class.isAssignableFrom(type);
	}

	/**
	 * Checks every value once bound; each problem names the full property.
	 * @param target the bound properties
	 * @param errors where problems are reported
	 */
	@Override
	public void validate(Object target, Errors errors) {
		PropertiesValidation.validate((BatchConsumerProperties) target, errors);
	}

	/**
	 * Flow control per partition (RocketMQ's thresholds).
	 */
	public static class FlowControl {

		/**
		 * How many buffered messages of a partition stop fetching it.
		 */
		private int pullThresholdForQueue = 1000;

		/**
		 * How many buffered bytes of a partition stop fetching it.
		 */
		private DataSize pullThresholdSizeForQueue = DataSize.ofMegabytes(100);

		/**
		 * How wide the offset span of a partition's unfinished work may grow before fetching stops
		 * ('unordered' and 'key' ordering).
		 */
		private int maxSpan = 2000;

		/**
		 * How long a partition stopped by flow control waits before it is looked at again.
		 */
		private Duration suspend = Duration.ofMillis(50);

		public int getPullThresholdForQueue() {
			return this.pullThresholdForQueue;
		}

		public void setPullThresholdForQueue(int pullThresholdForQueue) {
			this.pullThresholdForQueue = pullThresholdForQueue;
		}

		public DataSize getPullThresholdSizeForQueue() {
			return this.pullThresholdSizeForQueue;
		}

		public void setPullThresholdSizeForQueue(DataSize pullThresholdSizeForQueue) {
			this.pullThresholdSizeForQueue = pullThresholdSizeForQueue;
		}

		public int getMaxSpan() {
			return this.maxSpan;
		}

		public void setMaxSpan(int maxSpan) {
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
		private Duration interval = Duration.ofSeconds(1);

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
		private int maxAttempts = 3;

		/**
		 * How long to wait before the first retry.
		 */
		private Duration backoff = Duration.ofMillis(100);

		/**
		 * How much the wait grows after each retry.
		 */
		private double multiplier = 2.0;

		/**
		 * How long to wait at most between two retries.
		 */
		private Duration maxBackoff = Duration.ofSeconds(10);

		public int getMaxAttempts() {
			return this.maxAttempts;
		}

		public void setMaxAttempts(int maxAttempts) {
			this.maxAttempts = maxAttempts;
		}

		public Duration getBackoff() {
			return this.backoff;
		}

		public void setBackoff(Duration backoff) {
			this.backoff = backoff;
		}

		public double getMultiplier() {
			return this.multiplier;
		}

		public void setMultiplier(double multiplier) {
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
		private boolean enabled = true;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

	}

	/**
	 * The 'batchConsumer' health component.
	 */
	public static class Health {

		/**
		 * How long a container may have a backlog without commit progress before it is DOWN.
		 */
		private Duration stallTimeout = Duration.ofMinutes(5);

		public Duration getStallTimeout() {
			return this.stallTimeout;
		}

		public void setStallTimeout(Duration stallTimeout) {
			this.stallTimeout = stallTimeout;
		}

	}

	/**
	 * The 'batch.consumer.*' meters.
	 */
	public static class Metrics {

		/**
		 * Whether gauges and the slice timer are tagged per partition ('topic', 'partition'). Turn
		 * it off for very wide topics: then only per-listener sums are published.
		 */
		private boolean perPartition = true;

		/**
		 * How often per-partition meters are added for newly assigned partitions and removed for
		 * revoked ones.
		 */
		private Duration refreshInterval = Duration.ofSeconds(10);

		public boolean isPerPartition() {
			return this.perPartition;
		}

		public void setPerPartition(boolean perPartition) {
			this.perPartition = perPartition;
		}

		public Duration getRefreshInterval() {
			return this.refreshInterval;
		}

		public void setRefreshInterval(Duration refreshInterval) {
			this.refreshInterval = refreshInterval;
		}

	}

	/**
	 * The JDBC transport.
	 */
	public static class Jdbc {

		/**
		 * When to create the tables: 'embedded' (only for an embedded database), 'always' or
		 * 'never'.
		 */
		private String initializeSchema = "embedded";

		/**
		 * Prefix of the transport's table names.
		 */
		private String tablePrefix = "bc_";

		/**
		 * How many queues (partitions) a new topic gets.
		 */
		private int queuesPerTopic = 4;

		/**
		 * How long a queue lease lasts without a heartbeat; a dead instance's queues move to
		 * others after it (clustering mode).
		 */
		private Duration leaseDuration = Duration.ofSeconds(30);

		/**
		 * How long consumed messages are kept before they are deleted.
		 */
		private Duration retention = Duration.ofDays(7);

		/**
		 * Id of this instance in the lease table and in broadcast offsets. Defaults to a random
		 * 'host-pid-uuid'; set a stable one for broadcast consumers that must resume after a restart.
		 */
		private String instanceId;

		public String getInstanceId() {
			return this.instanceId;
		}

		public void setInstanceId(String instanceId) {
			this.instanceId = instanceId;
		}

		public String getInitializeSchema() {
			return this.initializeSchema;
		}

		public void setInitializeSchema(String initializeSchema) {
			this.initializeSchema = initializeSchema;
		}

		public String getTablePrefix() {
			return this.tablePrefix;
		}

		public void setTablePrefix(String tablePrefix) {
			this.tablePrefix = tablePrefix;
		}

		public int getQueuesPerTopic() {
			return this.queuesPerTopic;
		}

		public void setQueuesPerTopic(int queuesPerTopic) {
			this.queuesPerTopic = queuesPerTopic;
		}

		public Duration getLeaseDuration() {
			return this.leaseDuration;
		}

		public void setLeaseDuration(Duration leaseDuration) {
			this.leaseDuration = leaseDuration;
		}

		public Duration getRetention() {
			return this.retention;
		}

		public void setRetention(Duration retention) {
			this.retention = retention;
		}

	}

	/**
	 * Overrides for one listener; every value is optional and falls back to the global one.
	 */
	public static class Listener {

		/**
		 * Topics to consume, when the annotation names none.
		 */
		private List<String> topics = new ArrayList<>();

		/**
		 * Consumer group of this listener.
		 */
		private String group;

		/**
		 * How instances share a topic: 'clustering' or 'broadcast'.
		 */
		private String mode;

		/**
		 * How many worker threads this listener's container runs.
		 */
		private Integer threadSize;

		/**
		 * How many messages a slice holds at most.
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
		 * Which order is kept within a partition: 'unordered', 'key' or 'partition'.
		 */
		private String ordering;

		/**
		 * Whether this listener's container starts with the application.
		 */
		private Boolean autoStartup;

		/**
		 * How long to wait for in-flight work on revoke and on stop.
		 */
		private Duration shutdownTimeout;

		private final ListenerFlowControl flowControl = new ListenerFlowControl();

		private final ListenerCommit commit = new ListenerCommit();

		private final ListenerRetry retry = new ListenerRetry();

		private final ListenerDeadLetter deadLetter = new ListenerDeadLetter();

		public List<String> getTopics() {
			return this.topics;
		}

		public void setTopics(List<String> topics) {
			this.topics = topics;
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

		public ListenerFlowControl getFlowControl() {
			return this.flowControl;
		}

		public ListenerCommit getCommit() {
			return this.commit;
		}

		public ListenerRetry getRetry() {
			return this.retry;
		}

		public ListenerDeadLetter getDeadLetter() {
			return this.deadLetter;
		}

	}

	/**
	 * Flow control overrides of one listener.
	 */
	public static class ListenerFlowControl {

		/**
		 * How many buffered messages of a partition stop fetching it.
		 */
		private Integer pullThresholdForQueue;

		/**
		 * How many buffered bytes of a partition stop fetching it.
		 */
		private DataSize pullThresholdSizeForQueue;

		/**
		 * How wide the offset span of unfinished work may grow before fetching stops.
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
	 * Commit overrides of one listener.
	 */
	public static class ListenerCommit {

		/**
		 * How long at least between two commits; 0 commits after each finished thread batch.
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
	 * Retry overrides of one listener.
	 */
	public static class ListenerRetry {

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
	 * Dead-letter overrides of one listener.
	 */
	public static class ListenerDeadLetter {

		/**
		 * Whether this listener's failed messages are dead-lettered.
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

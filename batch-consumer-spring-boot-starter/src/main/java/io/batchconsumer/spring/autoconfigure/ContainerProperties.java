package io.batchconsumer.spring.autoconfigure;

import java.time.Duration;

import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.util.unit.DataSize;

/**
 * The options of a listener container as properties, one type for both levels: the global
 * {@code batch-consumer.*} values ({@link BatchConsumerProperties} extends it) and the
 * per-listener {@code batch-consumer.listeners.<id>.*} overrides
 * ({@link BatchConsumerProperties.Listener} extends it). A value that is {@code null} is not set.
 * The global level starts with every default of the option table
 * ({@code OptionTable.applyDefaults}); a listener starts empty.
 *
 * <p>Each field is an option of {@link io.batchconsumer.core.options.OptionCatalog} that the global
 * level may set: its key in camel case, its description as the field's Javadoc (the IDE shows
 * it). An option keyed {@code <group>.<name>} lives in the group's class ({@code retry.backoff}
 * in {@link RetryProperties}); an option only a listener may set lives in
 * {@link ListenerProperties}. Tests hold these classes, {@code @BatchListener} and the IDE
 * metadata to the table: an option added there without its property here fails them.
 *
 * <p>Threading: bound once at start-up, then only read.
 */
public class ContainerProperties {

	/**
	 * The consumer group. Defaults to 'spring.application.name', or 'batch-consumer' when that is
	 * not set.
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
	 * How many messages a list listener gets per call at most (slices of cheap messages grow; a
	 * list listener then gets one in several calls).
	 */
	private Integer consumerBatchSize;

	/**
	 * How many messages a batch waits for at least, for at most 'consumer-batch-max-wait', holding no
	 * thread; 1 hands out what is there at once.
	 */
	private Integer consumerBatchMinSize;

	/**
	 * How long a batch waits at most for 'consumer-batch-min-size' messages (or
	 * 'consumer-batch-max-bytes'); 0 does not wait.
	 */
	private Duration consumerBatchMaxWait;

	/**
	 * How many bytes of messages a list listener gets per call at most (a larger message comes
	 * alone); 0 for no bound.
	 */
	private DataSize consumerBatchMaxBytes;

	/**
	 * How many messages per second the listener gets at most, over all its threads; 0 for no limit.
	 * Messages held back wait in the buffer, holding no thread.
	 */
	private Integer rateLimit;

	/**
	 * How many messages per second each message key gets at most; 0 for no limit. A key's messages
	 * beyond it wait, holding no thread, while other keys' messages go on.
	 */
	private Integer rateLimitPerKey;

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
	 * How long to wait for in-flight work on revoke and on stop.
	 */
	private Duration shutdownTimeout;

	/**
	 * How long after its timestamp a message reaches the listener at the earliest; 0 delivers at
	 * once. A partition waits for its head without holding a thread.
	 */
	private Duration delay;

	/**
	 * Whether listener containers start with the application.
	 */
	private Boolean autoStartup;

	/**
	 * 'at-least-once' (the default) or 'exactly-once': the listener's database writes and its
	 * messages' completion marks commit in one transaction of the application's transaction
	 * manager.
	 */
	private String processing;

	@NestedConfigurationProperty
	private final FlowControlProperties flowControl = new FlowControlProperties();

	@NestedConfigurationProperty
	private final CommitProperties commit = new CommitProperties();

	@NestedConfigurationProperty
	private final RetryProperties retry = new RetryProperties();

	@NestedConfigurationProperty
	private final DeadLetterProperties deadLetter = new DeadLetterProperties();

	@NestedConfigurationProperty
	private final AsyncProperties async = new AsyncProperties();

	/**
	 * Creates the options of one level.
	 * @param withDefaults whether every option starts at its default (the global level) or unset
	 */
	protected ContainerProperties(boolean withDefaults) {
		if (withDefaults) {
			OptionTable.applyDefaults(this);
		}
	}

	/**
	 * Returns the consumer group ({@code group}).
	 * @return the value, or {@code null} when not set
	 */
	public String getGroup() {
		return this.group;
	}

	/**
	 * Sets the consumer group ({@code group}).
	 * @param group the value, or {@code null} for not set
	 */
	public void setGroup(String group) {
		this.group = group;
	}

	/**
	 * Returns how instances share a topic ({@code mode}).
	 * @return the value, or {@code null} when not set
	 */
	public String getMode() {
		return this.mode;
	}

	/**
	 * Sets how instances share a topic ({@code mode}).
	 * @param mode the value, or {@code null} for not set
	 */
	public void setMode(String mode) {
		this.mode = mode;
	}

	/**
	 * Returns how many worker threads each container runs ({@code thread-size}).
	 * @return the value, or {@code null} when not set
	 */
	public Integer getThreadSize() {
		return this.threadSize;
	}

	/**
	 * Sets how many worker threads each container runs ({@code thread-size}).
	 * @param threadSize the value, or {@code null} for not set
	 */
	public void setThreadSize(Integer threadSize) {
		this.threadSize = threadSize;
	}

	/**
	 * Returns how many messages a list listener gets per call at most ({@code consumer-batch-size}).
	 * @return the value, or {@code null} when not set
	 */
	public Integer getConsumerBatchSize() {
		return this.consumerBatchSize;
	}

	/**
	 * Sets how many messages a list listener gets per call at most ({@code consumer-batch-size}).
	 * @param consumerBatchSize the value, or {@code null} for not set
	 */
	public void setConsumerBatchSize(Integer consumerBatchSize) {
		this.consumerBatchSize = consumerBatchSize;
	}

	/**
	 * Returns how many messages a batch waits for at least ({@code consumer-batch-min-size}).
	 * @return the value, or {@code null} when not set
	 */
	public Integer getConsumerBatchMinSize() {
		return this.consumerBatchMinSize;
	}

	/**
	 * Sets how many messages a batch waits for at least ({@code consumer-batch-min-size}).
	 * @param consumerBatchMinSize the value, or {@code null} for not set
	 */
	public void setConsumerBatchMinSize(Integer consumerBatchMinSize) {
		this.consumerBatchMinSize = consumerBatchMinSize;
	}

	/**
	 * Returns how long a batch waits at most to fill ({@code consumer-batch-max-wait}).
	 * @return the value, or {@code null} when not set
	 */
	public Duration getConsumerBatchMaxWait() {
		return this.consumerBatchMaxWait;
	}

	/**
	 * Sets how long a batch waits at most to fill ({@code consumer-batch-max-wait}).
	 * @param consumerBatchMaxWait the value, or {@code null} for not set
	 */
	public void setConsumerBatchMaxWait(Duration consumerBatchMaxWait) {
		this.consumerBatchMaxWait = consumerBatchMaxWait;
	}

	/**
	 * Returns how many bytes a list listener gets per call at most ({@code consumer-batch-max-bytes}).
	 * @return the value, or {@code null} when not set
	 */
	public DataSize getConsumerBatchMaxBytes() {
		return this.consumerBatchMaxBytes;
	}

	/**
	 * Sets how many bytes a list listener gets per call at most ({@code consumer-batch-max-bytes}).
	 * @param consumerBatchMaxBytes the value, or {@code null} for not set
	 */
	public void setConsumerBatchMaxBytes(DataSize consumerBatchMaxBytes) {
		this.consumerBatchMaxBytes = consumerBatchMaxBytes;
	}

	/**
	 * Returns how many messages per second the listener gets at most ({@code rate-limit}).
	 * @return the value, or {@code null} when not set
	 */
	public Integer getRateLimit() {
		return this.rateLimit;
	}

	/**
	 * Sets how many messages per second the listener gets at most ({@code rate-limit}).
	 * @param rateLimit the value, or {@code null} for not set
	 */
	public void setRateLimit(Integer rateLimit) {
		this.rateLimit = rateLimit;
	}

	/**
	 * Returns how many messages per second each message key gets at most ({@code rate-limit-per-key}).
	 * @return the value, or {@code null} when not set
	 */
	public Integer getRateLimitPerKey() {
		return this.rateLimitPerKey;
	}

	/**
	 * Sets how many messages per second each message key gets at most ({@code rate-limit-per-key}).
	 * @param rateLimitPerKey the value, or {@code null} for not set
	 */
	public void setRateLimitPerKey(Integer rateLimitPerKey) {
		this.rateLimitPerKey = rateLimitPerKey;
	}

	/**
	 * Returns how many messages one pull fetches at most ({@code pull-batch-size}).
	 * @return the value, or {@code null} when not set
	 */
	public Integer getPullBatchSize() {
		return this.pullBatchSize;
	}

	/**
	 * Sets how many messages one pull fetches at most ({@code pull-batch-size}).
	 * @param pullBatchSize the value, or {@code null} for not set
	 */
	public void setPullBatchSize(Integer pullBatchSize) {
		this.pullBatchSize = pullBatchSize;
	}

	/**
	 * Returns how long to wait between two pulls ({@code pull-interval}).
	 * @return the value, or {@code null} when not set
	 */
	public Duration getPullInterval() {
		return this.pullInterval;
	}

	/**
	 * Sets how long to wait between two pulls ({@code pull-interval}).
	 * @param pullInterval the value, or {@code null} for not set
	 */
	public void setPullInterval(Duration pullInterval) {
		this.pullInterval = pullInterval;
	}

	/**
	 * Returns which order is kept within a partition ({@code ordering}).
	 * @return the value, or {@code null} when not set
	 */
	public String getOrdering() {
		return this.ordering;
	}

	/**
	 * Sets which order is kept within a partition ({@code ordering}).
	 * @param ordering the value, or {@code null} for not set
	 */
	public void setOrdering(String ordering) {
		this.ordering = ordering;
	}

	/**
	 * Returns how long to wait for in-flight work on revoke and on stop ({@code shutdown-timeout}).
	 * @return the value, or {@code null} when not set
	 */
	public Duration getShutdownTimeout() {
		return this.shutdownTimeout;
	}

	/**
	 * Sets how long to wait for in-flight work on revoke and on stop ({@code shutdown-timeout}).
	 * @param shutdownTimeout the value, or {@code null} for not set
	 */
	public void setShutdownTimeout(Duration shutdownTimeout) {
		this.shutdownTimeout = shutdownTimeout;
	}

	/**
	 * Returns how long after its timestamp a message reaches the listener at the earliest ({@code delay}).
	 * @return the value, or {@code null} when not set
	 */
	public Duration getDelay() {
		return this.delay;
	}

	/**
	 * Sets how long after its timestamp a message reaches the listener at the earliest ({@code delay}).
	 * @param delay the value, or {@code null} for not set
	 */
	public void setDelay(Duration delay) {
		this.delay = delay;
	}

	/**
	 * Returns whether listener containers start with the application ({@code auto-startup}).
	 * @return the value, or {@code null} when not set
	 */
	public Boolean getAutoStartup() {
		return this.autoStartup;
	}

	/**
	 * Sets whether listener containers start with the application ({@code auto-startup}).
	 * @param autoStartup the value, or {@code null} for not set
	 */
	public void setAutoStartup(Boolean autoStartup) {
		this.autoStartup = autoStartup;
	}

	/**
	 * Returns the processing guarantee ({@code processing}).
	 * @return the value, or {@code null} when not set
	 */
	public String getProcessing() {
		return this.processing;
	}

	/**
	 * Sets the processing guarantee ({@code processing}).
	 * @param processing the value, or {@code null} for not set
	 */
	public void setProcessing(String processing) {
		this.processing = processing;
	}

	/**
	 * Returns the {@code flow-control.*} options.
	 * @return the options of the group, never {@code null}
	 */
	public FlowControlProperties getFlowControl() {
		return this.flowControl;
	}

	/**
	 * Returns the {@code commit.*} options.
	 * @return the options of the group, never {@code null}
	 */
	public CommitProperties getCommit() {
		return this.commit;
	}

	/**
	 * Returns the {@code retry.*} options.
	 * @return the options of the group, never {@code null}
	 */
	public RetryProperties getRetry() {
		return this.retry;
	}

	/**
	 * Returns the {@code dead-letter.*} options.
	 * @return the options of the group, never {@code null}
	 */
	public DeadLetterProperties getDeadLetter() {
		return this.deadLetter;
	}

	/**
	 * Returns the {@code async.*} options.
	 * @return the options of the group, never {@code null}
	 */
	public AsyncProperties getAsync() {
		return this.async;
	}

}

package io.batchconsumer.spring.autoconfigure;

import java.time.Duration;

import org.springframework.boot.context.properties.NestedConfigurationProperty;

/**
 * The options of a listener container as properties, one type for both levels: the global
 * {@code batch-consumer.*} values ({@link BatchConsumerProperties} extends it) and the
 * per-listener {@code batch-consumer.listeners.<id>.*} overrides
 * ({@link BatchConsumerProperties.Listener} extends it). A value that is {@code null} is not set.
 * The global level starts with every default of the option table, written nowhere else; a
 * listener starts empty.
 * Generated from the option table ({@link io.batchconsumer.core.ConfigurableOptions})
 * by {@code src/build/GenerateOptionSources.java}: change the table, not this file.
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

	public Boolean getAutoStartup() {
		return this.autoStartup;
	}

	public void setAutoStartup(Boolean autoStartup) {
		this.autoStartup = autoStartup;
	}

	public String getProcessing() {
		return this.processing;
	}

	public void setProcessing(String processing) {
		this.processing = processing;
	}

	public FlowControlProperties getFlowControl() {
		return this.flowControl;
	}

	public CommitProperties getCommit() {
		return this.commit;
	}

	public RetryProperties getRetry() {
		return this.retry;
	}

	public DeadLetterProperties getDeadLetter() {
		return this.deadLetter;
	}

}

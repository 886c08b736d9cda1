package io.batchconsumer.spring.autoconfigure;

import java.time.Duration;

import org.springframework.util.unit.DataSize;

/**
 * The {@code flow-control.*} options of {@link ContainerProperties}, at both levels
 * ({@code batch-consumer.flow-control.*} and {@code batch-consumer.listeners.<id>.flow-control.*}). A value
 * that is {@code null} is not set.
 * Generated from the option table ({@link io.batchconsumer.core.ConfigurableOptions})
 * by {@code src/build/GenerateOptionSources.java}: change the table, not this file.
 *
 * <p>Threading: bound once at start-up, then only read.
 */
public class FlowControlProperties {

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
	 * How many buffered messages of the whole container, over all its partitions, stop fetching
	 * the partitions that hold more than their share (this divided by the partitions assigned).
	 */
	private Integer pullThresholdForContainer;

	/**
	 * How many buffered bytes of the whole container, over all its partitions, stop fetching the
	 * partitions that hold more than their share (this divided by the partitions assigned).
	 */
	private DataSize pullThresholdSizeForContainer;

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

	public Integer getPullThresholdForContainer() {
		return this.pullThresholdForContainer;
	}

	public void setPullThresholdForContainer(Integer pullThresholdForContainer) {
		this.pullThresholdForContainer = pullThresholdForContainer;
	}

	public DataSize getPullThresholdSizeForContainer() {
		return this.pullThresholdSizeForContainer;
	}

	public void setPullThresholdSizeForContainer(DataSize pullThresholdSizeForContainer) {
		this.pullThresholdSizeForContainer = pullThresholdSizeForContainer;
	}

	public Duration getSuspend() {
		return this.suspend;
	}

	public void setSuspend(Duration suspend) {
		this.suspend = suspend;
	}

}

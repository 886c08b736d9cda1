package io.batchconsumer.spring.autoconfigure;

import java.time.Duration;

import org.springframework.util.unit.DataSize;

/**
 * The {@code flow-control.*} options of {@link ContainerProperties}, at both levels
 * ({@code batch-consumer.flow-control.*} and
 * {@code batch-consumer.listeners.<id>.flow-control.*}). A value that is {@code null} is not set.
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

	/**
	 * Returns how many buffered messages of a partition stop fetching it
	 * ({@code flow-control.pull-threshold-for-queue}).
	 * @return the value, or {@code null} when not set
	 */
	public Integer getPullThresholdForQueue() {
		return this.pullThresholdForQueue;
	}

	/**
	 * Sets how many buffered messages of a partition stop fetching it
	 * ({@code flow-control.pull-threshold-for-queue}).
	 * @param pullThresholdForQueue the value, or {@code null} for not set
	 */
	public void setPullThresholdForQueue(Integer pullThresholdForQueue) {
		this.pullThresholdForQueue = pullThresholdForQueue;
	}

	/**
	 * Returns how many buffered bytes of a partition stop fetching it
	 * ({@code flow-control.pull-threshold-size-for-queue}).
	 * @return the value, or {@code null} when not set
	 */
	public DataSize getPullThresholdSizeForQueue() {
		return this.pullThresholdSizeForQueue;
	}

	/**
	 * Sets how many buffered bytes of a partition stop fetching it
	 * ({@code flow-control.pull-threshold-size-for-queue}).
	 * @param pullThresholdSizeForQueue the value, or {@code null} for not set
	 */
	public void setPullThresholdSizeForQueue(DataSize pullThresholdSizeForQueue) {
		this.pullThresholdSizeForQueue = pullThresholdSizeForQueue;
	}

	/**
	 * Returns how wide the offset span of a partition's unfinished work may grow
	 * ({@code flow-control.max-span}).
	 * @return the value, or {@code null} when not set
	 */
	public Integer getMaxSpan() {
		return this.maxSpan;
	}

	/**
	 * Sets how wide the offset span of a partition's unfinished work may grow
	 * ({@code flow-control.max-span}).
	 * @param maxSpan the value, or {@code null} for not set
	 */
	public void setMaxSpan(Integer maxSpan) {
		this.maxSpan = maxSpan;
	}

	/**
	 * Returns how many buffered messages of the container stop fetching
	 * ({@code flow-control.pull-threshold-for-container}).
	 * @return the value, or {@code null} when not set
	 */
	public Integer getPullThresholdForContainer() {
		return this.pullThresholdForContainer;
	}

	/**
	 * Sets how many buffered messages of the container stop fetching
	 * ({@code flow-control.pull-threshold-for-container}).
	 * @param pullThresholdForContainer the value, or {@code null} for not set
	 */
	public void setPullThresholdForContainer(Integer pullThresholdForContainer) {
		this.pullThresholdForContainer = pullThresholdForContainer;
	}

	/**
	 * Returns how many buffered bytes of the container stop fetching
	 * ({@code flow-control.pull-threshold-size-for-container}).
	 * @return the value, or {@code null} when not set
	 */
	public DataSize getPullThresholdSizeForContainer() {
		return this.pullThresholdSizeForContainer;
	}

	/**
	 * Sets how many buffered bytes of the container stop fetching
	 * ({@code flow-control.pull-threshold-size-for-container}).
	 * @param pullThresholdSizeForContainer the value, or {@code null} for not set
	 */
	public void setPullThresholdSizeForContainer(DataSize pullThresholdSizeForContainer) {
		this.pullThresholdSizeForContainer = pullThresholdSizeForContainer;
	}

	/**
	 * Returns how long a partition stopped by flow control waits ({@code flow-control.suspend}).
	 * @return the value, or {@code null} when not set
	 */
	public Duration getSuspend() {
		return this.suspend;
	}

	/**
	 * Sets how long a partition stopped by flow control waits ({@code flow-control.suspend}).
	 * @param suspend the value, or {@code null} for not set
	 */
	public void setSuspend(Duration suspend) {
		this.suspend = suspend;
	}

}

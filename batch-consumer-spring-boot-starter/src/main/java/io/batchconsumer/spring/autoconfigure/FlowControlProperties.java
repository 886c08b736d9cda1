package io.batchconsumer.spring.autoconfigure;

import java.time.Duration;

import org.springframework.util.unit.DataSize;

/**
 * Flow control per partition (RocketMQ's thresholds): the {@code flow-control.*} options of
 * {@link ContainerProperties}, at both levels ({@code batch-consumer.flow-control.*} and
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

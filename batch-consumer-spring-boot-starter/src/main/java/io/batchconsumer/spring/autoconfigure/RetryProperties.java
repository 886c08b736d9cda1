package io.batchconsumer.spring.autoconfigure;

import java.time.Duration;

/**
 * The {@code retry.*} options of {@link ContainerProperties}, at both levels
 * ({@code batch-consumer.retry.*} and {@code batch-consumer.listeners.<id>.retry.*}). A value
 * that is {@code null} is not set.
 * Generated from the option table ({@link io.batchconsumer.core.ConfigurableOptions})
 * by {@code src/build/GenerateOptionSources.java}: change the table, not this file.
 *
 * <p>Threading: bound once at start-up, then only read.
 */
public class RetryProperties {

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

}

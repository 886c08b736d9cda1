package io.batchconsumer.spring.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code retry.*} options of {@link ContainerProperties}, at both levels
 * ({@code batch-consumer.retry.*} and {@code batch-consumer.listeners.<id>.retry.*}). A value
 * that is {@code null} is not set.
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

	/**
	 * Exception classes (fully qualified names) that are never retried: a message failed by one of
	 * them, by a subclass, or by an exception caused by one, goes to the dead letter at once.
	 */
	private List<String> notRetryable = new ArrayList<>();

	/**
	 * Returns how many times a message is delivered before it is dead-lettered ({@code retry.max-attempts}).
	 * @return the value, or {@code null} when not set
	 */
	public Integer getMaxAttempts() {
		return this.maxAttempts;
	}

	/**
	 * Sets how many times a message is delivered before it is dead-lettered ({@code retry.max-attempts}).
	 * @param maxAttempts the value, or {@code null} for not set
	 */
	public void setMaxAttempts(Integer maxAttempts) {
		this.maxAttempts = maxAttempts;
	}

	/**
	 * Returns how long to wait before the first retry ({@code retry.backoff}).
	 * @return the value, or {@code null} when not set
	 */
	public Duration getBackoff() {
		return this.backoff;
	}

	/**
	 * Sets how long to wait before the first retry ({@code retry.backoff}).
	 * @param backoff the value, or {@code null} for not set
	 */
	public void setBackoff(Duration backoff) {
		this.backoff = backoff;
	}

	/**
	 * Returns how much the wait grows after each retry ({@code retry.multiplier}).
	 * @return the value, or {@code null} when not set
	 */
	public Double getMultiplier() {
		return this.multiplier;
	}

	/**
	 * Sets how much the wait grows after each retry ({@code retry.multiplier}).
	 * @param multiplier the value, or {@code null} for not set
	 */
	public void setMultiplier(Double multiplier) {
		this.multiplier = multiplier;
	}

	/**
	 * Returns how long to wait at most between two retries ({@code retry.max-backoff}).
	 * @return the value, or {@code null} when not set
	 */
	public Duration getMaxBackoff() {
		return this.maxBackoff;
	}

	/**
	 * Sets how long to wait at most between two retries ({@code retry.max-backoff}).
	 * @param maxBackoff the value, or {@code null} for not set
	 */
	public void setMaxBackoff(Duration maxBackoff) {
		this.maxBackoff = maxBackoff;
	}

	/**
	 * Returns the longest back-off a worker waits out itself ({@code retry.blocking-limit}).
	 * @return the value, or {@code null} when not set
	 */
	public Duration getBlockingLimit() {
		return this.blockingLimit;
	}

	/**
	 * Sets the longest back-off a worker waits out itself ({@code retry.blocking-limit}).
	 * @param blockingLimit the value, or {@code null} for not set
	 */
	public void setBlockingLimit(Duration blockingLimit) {
		this.blockingLimit = blockingLimit;
	}

	/**
	 * Returns the back-offs by retry ({@code retry.levels}).
	 * @return the value, or {@code null} when not set
	 */
	public String getLevels() {
		return this.levels;
	}

	/**
	 * Sets the back-offs by retry ({@code retry.levels}).
	 * @param levels the value, or {@code null} for not set
	 */
	public void setLevels(String levels) {
		this.levels = levels;
	}

	/**
	 * Returns the exception classes that are never retried ({@code retry.not-retryable}).
	 * @return the class names, empty when not set
	 */
	public List<String> getNotRetryable() {
		return this.notRetryable;
	}

	/**
	 * Sets the exception classes that are never retried ({@code retry.not-retryable}).
	 * @param notRetryable the class names
	 */
	public void setNotRetryable(List<String> notRetryable) {
		this.notRetryable = notRetryable;
	}

}

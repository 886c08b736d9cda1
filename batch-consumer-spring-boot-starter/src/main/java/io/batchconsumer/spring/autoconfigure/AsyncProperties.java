package io.batchconsumer.spring.autoconfigure;

import java.time.Duration;

/**
 * The {@code async.*} options of {@link ContainerProperties}, at both levels
 * ({@code batch-consumer.async.*} and {@code batch-consumer.listeners.<id>.async.*}): they apply
 * to listener methods that return a {@code CompletionStage}. A value that is {@code null} is not set.
 *
 * <p>Threading: bound once at start-up, then only read.
 */
public class AsyncProperties {

	/**
	 * How long an asynchronous listener's CompletionStage may take to complete; one that takes
	 * longer fails its messages, which are retried like any failure.
	 */
	private Duration timeout;

	/**
	 * Returns how long a listener's stage may take to complete ({@code async.timeout}).
	 * @return the value, or {@code null} when not set
	 */
	public Duration getTimeout() {
		return this.timeout;
	}

	/**
	 * Sets how long a listener's stage may take to complete ({@code async.timeout}).
	 * @param timeout the value, or {@code null} for not set
	 */
	public void setTimeout(Duration timeout) {
		this.timeout = timeout;
	}

}

package io.batchconsumer.spring.autoconfigure;

import java.time.Duration;

/**
 * The {@code commit.*} options of {@link ContainerProperties}, at both levels
 * ({@code batch-consumer.commit.*} and {@code batch-consumer.listeners.<id>.commit.*}). A value
 * that is {@code null} is not set.
 *
 * <p>Threading: bound once at start-up, then only read.
 */
public class CommitProperties {

	/**
	 * How long at least between two commits of a container; 0 commits after each finished thread
	 * batch.
	 */
	private Duration interval;

	/**
	 * Returns how long at least between two commits ({@code commit.interval}).
	 * @return the value, or {@code null} when not set
	 */
	public Duration getInterval() {
		return this.interval;
	}

	/**
	 * Sets how long at least between two commits ({@code commit.interval}).
	 * @param interval the value, or {@code null} for not set
	 */
	public void setInterval(Duration interval) {
		this.interval = interval;
	}

}

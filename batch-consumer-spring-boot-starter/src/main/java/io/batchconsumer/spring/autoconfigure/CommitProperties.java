package io.batchconsumer.spring.autoconfigure;

import java.time.Duration;

/**
 * Commits of consumed positions: the {@code commit.*} options of {@link ContainerProperties}, at
 * both levels ({@code batch-consumer.commit.*} and
 * {@code batch-consumer.listeners.<id>.commit.*}). A value that is {@code null} is not set.
 *
 * <p>Threading: bound once at start-up, then only read.
 */
public class CommitProperties {

	/**
	 * How long at least between two commits of a container; 0 commits after each finished
	 * thread batch.
	 */
	private Duration interval;

	public Duration getInterval() {
		return this.interval;
	}

	public void setInterval(Duration interval) {
		this.interval = interval;
	}

}

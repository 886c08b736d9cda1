package io.batchconsumer.spring.autoconfigure;

import java.time.Duration;

/**
 * The {@code commit.*} options of {@link ContainerProperties}, at both levels
 * ({@code batch-consumer.commit.*} and {@code batch-consumer.listeners.<id>.commit.*}). A value
 * that is {@code null} is not set.
 * Generated from the option table ({@link io.batchconsumer.core.ConfigurableOptions})
 * by {@code src/build/GenerateOptionSources.java}: change the table, not this file.
 *
 * <p>Threading: bound once at start-up, then only read.
 */
public class CommitProperties {

	/**
	 * How long at least between two commits of a container; 0 commits after each finished thread
	 * batch.
	 */
	private Duration interval;

	public Duration getInterval() {
		return this.interval;
	}

	public void setInterval(Duration interval) {
		this.interval = interval;
	}

}

package io.batchconsumer.spring.autoconfigure;

import java.util.ArrayList;
import java.util.List;

/**
 * The options of one listener: those of {@link ContainerProperties} and those only a listener
 * may set. Every value starts unset and falls back to the global one.
 * Generated from the option table ({@link io.batchconsumer.core.ConfigurableOptions})
 * by {@code src/build/GenerateOptionSources.java}: change the table, not this file.
 *
 * <p>Threading: bound once at start-up, then only read.
 */
public class ListenerProperties extends ContainerProperties {

	/**
	 * The topics to consume.
	 */
	private List<String> topics = new ArrayList<>();

	/**
	 * Tag subscription in RocketMQ's syntax ('created || paid'); '*' or empty accepts every
	 * message. Other messages are finished without calling the listener and counted as
	 * 'batch.consumer.messages{outcome=filtered}'.
	 */
	private String tags;

	/**
	 * Creates listener options with nothing set.
	 */
	protected ListenerProperties() {
		super(false);
	}

	public List<String> getTopics() {
		return this.topics;
	}

	public void setTopics(List<String> topics) {
		this.topics = topics;
	}

	public String getTags() {
		return this.tags;
	}

	public void setTags(String tags) {
		this.tags = tags;
	}

}

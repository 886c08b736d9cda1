package io.batchconsumer.spring.autoconfigure;

import java.util.ArrayList;
import java.util.List;

/**
 * The options of one listener: those of {@link ContainerProperties} and those only a listener
 * may set ({@code topics}, {@code tags}). Every value starts unset and falls back to the global
 * one.
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

	/**
	 * Returns the topics to consume ({@code topics}).
	 * @return the topics, empty when not set
	 */
	public List<String> getTopics() {
		return this.topics;
	}

	/**
	 * Sets the topics to consume ({@code topics}).
	 * @param topics the topics
	 */
	public void setTopics(List<String> topics) {
		this.topics = topics;
	}

	/**
	 * Returns the tag subscription ({@code tags}).
	 * @return the value, or {@code null} when not set
	 */
	public String getTags() {
		return this.tags;
	}

	/**
	 * Sets the tag subscription ({@code tags}).
	 * @param tags the value, or {@code null} for not set
	 */
	public void setTags(String tags) {
		this.tags = tags;
	}

}

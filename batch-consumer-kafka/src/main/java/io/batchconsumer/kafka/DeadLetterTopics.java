package io.batchconsumer.kafka;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes sure a topic of the transport's own exists before the first record goes to it (a
 * dead-letter topic, a retry topic, the replay marks of a dead-letter topic): created with the
 * admin client, with the broker's default partition count and replication factor, the first time
 * this transport needs it; an existing topic is fine.
 *
 * <p>When the creation fails (no ACL, a policy, a name that collides with another topic's), the
 * admin client asks whether the topic exists. If it does, it is used. If it does not, {@link #ensure}
 * throws at once, naming the topic and the broker's reason, and the next call tries the creation
 * again: a send to a missing topic would otherwise wait for its metadata up to the producer's
 * {@code max.block.ms} every time. Only when the broker does not say (no describe permission, no
 * answer) does the send go ahead, after one warning: the topic may exist, and the send tells.
 *
 * <p>Threading: thread-safe; two threads may both try to create a topic, and one then finds it
 * exists.
 */
final class DeadLetterTopics {

	private static final Logger logger = LoggerFactory.getLogger(DeadLetterTopics.class);

	private static final long CREATE_TIMEOUT_SECONDS = 10;

	private final SharedClients clients;

	/** Topics known to exist, or whose existence the broker would not tell. */
	private final Set<String> settled = ConcurrentHashMap.newKeySet();

	DeadLetterTopics(SharedClients clients) {
		this.clients = clients;
	}

	/**
	 * The dead-letter topic of a topic.
	 * @param topic the original topic
	 * @return {@code <topic>.DLQ}
	 */
	static String of(String topic) {
		return topic + ".DLQ";
	}

	void ensure(String topic) throws InterruptedException {
		ensure(topic, Map.of(), "dead-letter topic");
	}

	/**
	 * Makes sure a topic exists, created with these topic configs when it does not.
	 * @param topic the topic
	 * @param configs topic configs of a new topic, such as {@code cleanup.policy=compact}
	 * @param what what the topic is, for the log: {@code dead-letter topic}, {@code retry topic}, ...
	 * @throws InterruptedException when interrupted while waiting for the admin client
	 * @throws IllegalStateException when the topic does not exist and could not be created
	 */
	void ensure(String topic, Map<String, String> configs, String what) throws InterruptedException {
		if (this.settled.contains(topic)) {
			return;
		}
		NewTopic newTopic = new NewTopic(topic, Optional.empty(), Optional.empty()).configs(configs);
		try {
			this.clients.admin().createTopics(List.of(newTopic)).all().get(CREATE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
			logger.info("Created {} {}", what, topic);
			this.settled.add(topic);
		}
		catch (ExecutionException ex) {
			if (ex.getCause() instanceof TopicExistsException) {
				this.settled.add(topic);
			}
			else {
				settleRefused(topic, what, ex.getCause());
			}
		}
		catch (TimeoutException ex) {
			// Not settled: the broker is slow or away, and the send will tell. Try again next time.
			logger.warn("Creating {} {} timed out", what, topic);
		}
	}

	/** After the broker refused to create the topic: settles it unless it is known to be missing. */
	private void settleRefused(String topic, String what, Throwable refusal) throws InterruptedException {
		try {
			this.clients.admin().describeTopics(List.of(topic)).allTopicNames().get(CREATE_TIMEOUT_SECONDS,
					TimeUnit.SECONDS);
			logger.info("Could not create {} {}, which exists: {}", what, topic, refusal.toString());
		}
		catch (ExecutionException ex) {
			if (ex.getCause() instanceof UnknownTopicOrPartitionException) {
				throw new IllegalStateException("The " + what + " " + topic
						+ " does not exist and could not be created: " + refusal, refusal);
			}
			logger.warn("Could not create {} {} nor tell whether it exists (the send goes ahead): {}; {}", what, topic,
					refusal.toString(), ex.getCause().toString());
		}
		catch (TimeoutException ex) {
			logger.warn("Could not create {} {} (the send goes ahead): {}; describing it timed out", what, topic,
					refusal.toString());
		}
		this.settled.add(topic);
	}

}

package io.batchconsumer.rocketmq;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.rocketmq.common.message.MessageQueue;

import io.batchconsumer.core.TopicPartition;

/**
 * Numbers RocketMQ message queues as partitions. A message queue is a topic, a broker name and a
 * queue id; a {@link TopicPartition} has one number, so each broker gets a block of
 * {@link #QUEUES_PER_BROKER} numbers: the first broker this transport meets has partitions
 * 0..1023 (its queue ids), the second 1024..2047, and so on. With one broker (or one broker
 * per topic) the partition is the queue id.
 *
 * <p>Threading: thread-safe (concurrent maps, an atomic block counter); shared by the transport's
 * sources, producer and dead-letter sinks, which may meet new brokers at the same moment.
 */
final class QueueNumbers {

	/** The partition numbers each broker gets. */
	static final int QUEUES_PER_BROKER = 1024;

	private final Map<String, Integer> brokers = new ConcurrentHashMap<>();

	/** The next broker's block: {@code computeIfAbsent} calls it once per broker, so no two share one. */
	private final AtomicInteger nextBroker = new AtomicInteger();

	private final Map<TopicPartition, MessageQueue> queues = new ConcurrentHashMap<>();

	private final Names names;

	QueueNumbers(Names names) {
		this.names = names;
	}

	/**
	 * The partition of a queue, remembering the queue for {@link #queue}.
	 * @param queue a queue as the client names it (topic with namespace)
	 * @return the partition (topic without namespace)
	 */
	TopicPartition partition(MessageQueue queue) {
		TopicPartition partition = partition(queue.getTopic(), queue.getBrokerName(), queue.getQueueId());
		this.queues.putIfAbsent(partition, queue);
		return partition;
	}

	/**
	 * The partition of a stored message.
	 * @param clientTopic the topic as the client names it
	 * @param brokerName the broker
	 * @param queueId the queue id
	 * @return the partition
	 */
	TopicPartition partition(String clientTopic, String brokerName, int queueId) {
		int broker = this.brokers.computeIfAbsent(brokerName, (name) -> this.nextBroker.getAndIncrement());
		return new TopicPartition(this.names.unwrap(clientTopic), broker * QUEUES_PER_BROKER + queueId);
	}

	/**
	 * The queue of a partition met before.
	 * @param partition the partition
	 * @return the queue
	 * @throws IllegalArgumentException when this transport never met the partition
	 */
	MessageQueue queue(TopicPartition partition) {
		MessageQueue queue = this.queues.get(partition);
		if (queue == null) {
			throw new IllegalArgumentException(partition + " is not a RocketMQ queue this transport has seen");
		}
		return queue;
	}

}

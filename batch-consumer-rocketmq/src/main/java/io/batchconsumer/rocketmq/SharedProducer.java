package io.batchconsumer.rocketmq;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * The transport's one {@code DefaultMQProducer}, started on first use (so that a consumer-only
 * application never connects one), and a short-lived cache of each topic's queues for the key
 * hash.
 *
 * <p>Threading: thread-safe; start and close are synchronized, the queue cache is concurrent.
 */
final class SharedProducer implements AutoCloseable {

	private static final long QUEUES_TTL_NANOS = Duration.ofSeconds(30).toNanos();

	private final RocketMqClients clients;

	private final Map<String, CachedQueues> queues = new ConcurrentHashMap<>();

	/** Guarded by {@code this}. */
	private DefaultMQProducer producer;

	/** Guarded by {@code this}. */
	private boolean closed;

	SharedProducer(RocketMqClients clients) {
		this.clients = clients;
	}

	/**
	 * The started producer.
	 * @return the producer
	 * @throws IllegalStateException when it cannot start or the transport is closed
	 */
	synchronized DefaultMQProducer get() {
		if (this.closed) {
			throw new IllegalStateException("The RocketMQ transport is closed");
		}
		if (this.producer == null) {
			DefaultMQProducer created = this.clients.producer();
			try {
				created.start();
			}
			catch (MQClientException ex) {
				throw new IllegalStateException("RocketMQ producer cannot start: " + ex.getMessage(), ex);
			}
			this.producer = created;
		}
		return this.producer;
	}

	/**
	 * The writable queues of a topic, sorted, from a cache refreshed every 30 s.
	 * @param clientTopic the topic as the broker knows it
	 * @return the queues
	 * @throws MQClientException when the name server does not know the topic
	 */
	List<MessageQueue> queues(String clientTopic) throws MQClientException {
		long now = System.nanoTime();
		CachedQueues cached = this.queues.get(clientTopic);
		if (cached == null || now - cached.loadedNanos > QUEUES_TTL_NANOS) {
			List<MessageQueue> found = get().fetchPublishMessageQueues(clientTopic).stream().sorted().toList();
			cached = new CachedQueues(found, now);
			this.queues.put(clientTopic, cached);
		}
		return cached.queues;
	}

	/** Shuts the producer down, if it was started. */
	@Override
	public synchronized void close() {
		this.closed = true;
		if (this.producer != null) {
			this.producer.shutdown();
			this.producer = null;
		}
	}

	private record CachedQueues(List<MessageQueue> queues, long loadedNanos) {
	}

}

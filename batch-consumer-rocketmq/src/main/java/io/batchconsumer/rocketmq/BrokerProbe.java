package io.batchconsumer.rocketmq;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.impl.MQClientManager;
import org.apache.rocketmq.client.impl.factory.MQClientInstance;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.remoting.protocol.ResponseCode;
import org.apache.rocketmq.remoting.protocol.route.TopicRouteData;

import io.batchconsumer.core.TopicPartition;

/**
 * Looks at the cluster on a thread of its own, so that the owner thread never blocks on a name
 * server or broker that does not answer: every {@link #INTERVAL} it asks the name server for the
 * topics' queues and each held queue's broker for its end offset, and publishes what it found.
 *
 * <p>A consumer rides out an outage silently (its pulls fail and are retried in the background),
 * so the source asks the probe after a poll that returned nothing: when the name server did not
 * answer, or no broker did, the source reports {@link io.batchconsumer.core.spi.SourceUnavailableException}
 * and the container's health is down until they answer again. The queue lists also drive the
 * assignment in broadcast mode.
 *
 * <p>Threading: {@link #run} on the probe thread; the result is an immutable snapshot in a volatile
 * field, read by the owner thread.
 */
final class BrokerProbe implements AutoCloseable {

	static final Duration INTERVAL = Duration.ofSeconds(2);

	private static final long TIMEOUT_MILLIS = 3_000;

	private final DefaultLitePullConsumer consumer;

	private final List<String> clientTopics;

	private final Supplier<Set<MessageQueue>> held;

	private final QueueNumbers numbers;

	private final ScheduledExecutorService executor;

	/** The latest findings; written by the probe thread, read by the owner thread. */
	private volatile Snapshot snapshot = new Snapshot(null, Map.of(), Map.of());

	BrokerProbe(String containerId, DefaultLitePullConsumer consumer, List<String> clientTopics,
			Supplier<Set<MessageQueue>> held, QueueNumbers numbers) {
		this.consumer = consumer;
		this.clientTopics = List.copyOf(clientTopics);
		this.held = held;
		this.numbers = numbers;
		this.executor = Executors.newSingleThreadScheduledExecutor((task) -> {
			Thread thread = new Thread(task, "batch-consumer-" + containerId + "-rocketmq-probe");
			thread.setDaemon(true);
			return thread;
		});
	}

	/** Starts probing now and every {@link #INTERVAL}. */
	void start() {
		this.executor.scheduleWithFixedDelay(this::run, 0, INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
	}

	Snapshot snapshot() {
		return this.snapshot;
	}

	private void run() {
		try {
			MQClientInstance client = MQClientManager.getInstance().getOrCreateMQClientInstance(this.consumer);
			String outage = null;
			Map<String, Set<MessageQueue>> queues = new HashMap<>();
			for (String topic : this.clientTopics) {
				try {
					TopicRouteData route = client.getMQClientAPIImpl().getTopicRouteInfoFromNameServer(topic, TIMEOUT_MILLIS);
					queues.put(topic, new HashSet<>(MQClientInstance.topicRouteData2TopicSubscribeInfo(topic, route)));
				}
				catch (Exception ex) {
					if (!isMissingTopic(ex)) {
						outage = "the name server " + this.consumer.getNamesrvAddr() + " does not answer: " + ex.getMessage();
					}
				}
			}
			Map<TopicPartition, Long> ends = new HashMap<>();
			Set<MessageQueue> probed = this.held.get();
			for (MessageQueue queue : probed) {
				try {
					ends.put(this.numbers.partition(queue), client.getMQAdminImpl().maxOffset(queue));
				}
				catch (Exception ex) {
					// counted below
				}
			}
			if (outage == null && !probed.isEmpty() && ends.isEmpty()) {
				outage = "no broker of " + probed.iterator().next().getTopic() + " answers";
			}
			this.snapshot = new Snapshot(outage, Map.copyOf(queues), Map.copyOf(ends));
		}
		catch (RuntimeException ex) {
			this.snapshot = new Snapshot("the cluster cannot be probed: " + ex, Map.of(), this.snapshot.endOffsets());
		}
	}

	private static boolean isMissingTopic(Exception ex) {
		return ex instanceof MQClientException client && client.getResponseCode() == ResponseCode.TOPIC_NOT_EXIST;
	}

	@Override
	public void close() {
		this.executor.shutdownNow();
	}

	/**
	 * What one probe found.
	 *
	 * @param outage why the cluster counts as unreachable, or {@code null} when it answered
	 * @param queues the queues of each topic (names as the client knows them) that the name server listed
	 * @param endOffsets the end offset of each held queue whose broker answered
	 */
	record Snapshot(String outage, Map<String, Set<MessageQueue>> queues, Map<TopicPartition, Long> endOffsets) {
	}

}

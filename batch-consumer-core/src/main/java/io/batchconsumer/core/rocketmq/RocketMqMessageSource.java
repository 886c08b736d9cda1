package io.batchconsumer.core.rocketmq;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.consumer.store.OffsetStore;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.batchconsumer.core.ConsumptionMode;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.MessageSource;
import io.batchconsumer.core.RebalanceListener;
import io.batchconsumer.core.SourceUnavailableException;
import io.batchconsumer.core.TopicPartition;

/**
 * A {@link MessageSource} on RocketMQ's {@code DefaultLitePullConsumer} with auto-commit off: a
 * message queue is a partition and the queue offset is the offset.
 *
 * <p>Clustering mode subscribes; RocketMQ's client rebalances on its own thread and the
 * {@link RebalanceGate} makes it wait until the engine drained and committed the queues that
 * leave. The engine learns of new queues from {@link QueueAssignment} before any of their
 * messages. Broadcast mode assigns every queue of the topics itself, from the {@link BrokerProbe}'s
 * lists, and keeps its offsets in RocketMQ's local offset file.
 *
 * <p>Commits write the engine's watermarks: in clustering mode straight to the broker with a
 * synchronous offset update per queue (a failure is thrown, never swallowed); in broadcast mode to
 * the local file. A queue that the client no longer holds (lost to another member) commits nothing.
 *
 * <p>Threading: only the container's owner thread calls it, except {@link #wakeup()}. The consumer
 * runs its own pull threads and rebalance thread; the gate and the probe are how they talk to the
 * owner thread.
 */
public final class RocketMqMessageSource implements MessageSource {

	private static final Logger logger = LoggerFactory.getLogger(RocketMqMessageSource.class);

	/** Client queues polled into one returned list at most. */
	private static final int MAX_REQUESTS_PER_POLL = 16;

	private final ContainerOptions options;

	private final RocketMqClients clients;

	private final QueueNumbers numbers;

	private final OwnerWait wait = new OwnerWait();

	private final RebalanceGate gate;

	/** Whether every message is subscribed, so that each queue's offsets have no gaps. */
	private final boolean dense;

	/** Made anew by each {@link #subscribe} attempt: a RocketMQ client that failed to start cannot start again. */
	private DefaultLitePullConsumer consumer;

	private final List<String> clientTopics = new ArrayList<>();

	/** The next offset each queue's messages continue at: one past the last returned, or the last seek. */
	private final Map<MessageQueue, Long> nextOffsets = new HashMap<>();

	private QueueAssignment assignment;

	private BrokerProbe probe;

	RocketMqMessageSource(ContainerOptions options, RocketMqClients clients, QueueNumbers numbers) {
		this.options = options;
		this.clients = clients;
		this.numbers = numbers;
		this.gate = new RebalanceGate(options.shutdownTimeout().plusSeconds(10).toNanos(), this.wait::wakeup);
		this.dense = RocketMqSettings.ALL.equals(clients.settings().selector(options.id()));
	}

	private boolean broadcast() {
		return this.options.mode() == ConsumptionMode.BROADCAST;
	}

	/**
	 * Creates and starts the consumer. A failure (the name server cannot be reached) is reported as
	 * {@link SourceUnavailableException}; the engine calls again later, with a new client each time.
	 */
	@Override
	public void subscribe(Collection<String> topics, RebalanceListener listener) {
		String selector = this.clients.settings().selector(this.options.id());
		DefaultLitePullConsumer created = this.clients.consumer(this.options, this.gate);
		List<String> wrapped = topics.stream().map(this.clients.names()::wrap).toList();
		try {
			for (String clientTopic : wrapped) {
				if (broadcast()) {
					created.setSubExpressionForAssign(clientTopic, selector);
				}
				else {
					created.subscribe(clientTopic, selector, this.gate);
				}
			}
			created.start();
		}
		catch (MQClientException | RuntimeException ex) {
			created.shutdown();
			throw new SourceUnavailableException("RocketMQ consumer of container '" + this.options.id()
					+ "' cannot start (name server " + this.clients.settings().nameServer() + "): " + ex.getMessage(), ex);
		}
		this.consumer = created;
		this.clientTopics.addAll(wrapped);
		this.assignment = new QueueAssignment(created, this.gate, this.numbers, listener, this.nextOffsets);
		this.probe = new BrokerProbe(this.options.id(), created, this.clientTopics, this.gate::held, this.numbers);
		this.probe.start();
	}

	@Override
	public List<Message<byte[]>> poll(Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (true) {
			this.assignment.handleRevocations();
			if (broadcast()) {
				this.assignment.assignBroadcast(this.clientTopics, this.probe.snapshot().queues());
			}
			this.assignment.reconcileIfChanged();
			List<Message<byte[]>> messages = fetch();
			if (!messages.isEmpty()) {
				return messages;
			}
			long left = deadline - System.nanoTime();
			if (this.wait.takeWakeup() || left <= 0) {
				checkReachable();
				return List.of();
			}
			this.wait.park(left);
		}
	}

	private List<Message<byte[]>> fetch() {
		List<Message<byte[]>> messages = new ArrayList<>();
		for (int request = 0; request < MAX_REQUESTS_PER_POLL; request++) {
			List<MessageExt> pulled = this.consumer.poll(0);
			if (pulled.isEmpty()) {
				break;
			}
			MessageExt first = pulled.get(0);
			MessageQueue queue = new MessageQueue(first.getTopic(), first.getBrokerName(), first.getQueueId());
			if (!this.gate.holds(queue)) {
				this.assignment.reconcile();
				if (!this.gate.holds(queue)) {
					continue; // a queue the client dropped meanwhile
				}
			}
			int from = continuation(queue, pulled);
			if (from < 0) {
				continue;
			}
			TopicPartition partition = this.numbers.partition(queue);
			for (MessageExt message : pulled.subList(from, pulled.size())) {
				messages.add(RocketMqMessages.message(message, partition));
			}
			this.nextOffsets.put(queue, pulled.get(pulled.size() - 1).getQueueOffset() + 1);
		}
		return messages;
	}

	/**
	 * Where a pulled batch continues the queue: the index of its first message at or past the
	 * queue's next offset, or -1 when it is dropped.
	 *
	 * <p>The client's seek starts a new pull task, but a pull of the task it replaces that was already
	 * on its way can still land in the cache afterwards, from the old pull position: past messages
	 * the seek had cleared (a gap; the engine would commit over it) or before what was read since (a
	 * repeat). Repeats are cut off. With every message subscribed a queue's offsets are dense, so a
	 * batch that starts past the next offset is such a stale pull: it is dropped and the queue is
	 * sought back to the next offset, unless the broker no longer has those messages (deleted by its
	 * retention). A tag selector makes gaps normal (the broker skips what does not match), so they
	 * cannot be told apart, and {@link #resume} does not seek then.
	 */
	private int continuation(MessageQueue queue, List<MessageExt> pulled) {
		Long next = this.nextOffsets.get(queue);
		if (next == null) {
			return 0;
		}
		int from = 0;
		while (from < pulled.size() && pulled.get(from).getQueueOffset() < next) {
			from++;
		}
		if (from == pulled.size()) {
			return -1;
		}
		long first = pulled.get(from).getQueueOffset();
		if (first == next || !this.dense) {
			return from;
		}
		long oldest = oldestOffset(queue);
		if (oldest > next) {
			logger.warn("Messages {} to {} of {} were deleted by the broker before container '{}' read them",
					next, oldest - 1, queue, this.options.id());
			this.nextOffsets.put(queue, oldest);
			if (first == oldest) {
				return from;
			}
			next = oldest;
		}
		logger.debug("A pull of {} from {} arrived after the queue was sought to {}: dropped, read again from {}",
				queue, first, next, next);
		try {
			this.consumer.seek(queue, next);
		}
		catch (MQClientException ex) {
			// the next batch of the queue tries again; nothing past the next offset is let through before
			logger.debug("Seek of {} to {} failed: {}", queue, next, ex.getMessage());
		}
		return -1;
	}

	/** The first offset the broker still has in the queue, 0 when it cannot tell. */
	private long oldestOffset(MessageQueue queue) {
		try {
			Long oldest = this.consumer.offsetForTimestamp(queue, 0L);
			return (oldest != null) ? oldest : 0;
		}
		catch (MQClientException ex) {
			return 0;
		}
	}

	private void checkReachable() {
		String outage = this.probe.snapshot().outage();
		if (outage != null) {
			throw new SourceUnavailableException("RocketMQ is unreachable for container '" + this.options.id() + "': "
					+ outage + "; the consumer keeps trying", null);
		}
	}

	@Override
	public void pause(Collection<TopicPartition> partitions) {
		this.consumer.pause(queues(partitions));
	}

	/**
	 * Resumes fetching. The client's pull task of a paused queue looks again only every second,
	 * which stalled a queue for up to a second after each flow-control pause; with every message
	 * subscribed a seek to the queue's next offset restarts its pull task now (and drops nothing:
	 * what the client had cached for the queue lies at or past that offset and is pulled again; a
	 * stale pull of the replaced task is caught by {@link #continuation}). A tag selector keeps the
	 * plain resume, whose pull task starts within a second.
	 */
	@Override
	public void resume(Collection<TopicPartition> partitions) {
		List<MessageQueue> queues = queues(partitions);
		this.consumer.resume(queues);
		if (!this.dense) {
			return;
		}
		for (MessageQueue queue : queues) {
			Long next = this.nextOffsets.get(queue);
			if (next != null && this.gate.holds(queue)) {
				try {
					this.consumer.seek(queue, next);
				}
				catch (MQClientException ex) {
					// rebalancing or out of range: the plain resume above still takes effect within a second
				}
			}
		}
	}

	@Override
	public void seek(TopicPartition partition, long offset) {
		try {
			MessageQueue queue = this.numbers.queue(partition);
			this.consumer.seek(queue, offset);
			this.nextOffsets.put(queue, offset);
		}
		catch (MQClientException ex) {
			throw new IllegalArgumentException("Cannot seek " + partition + " to " + offset + ": " + ex.getMessage(), ex);
		}
	}

	@Override
	public void commitSync(Map<TopicPartition, Long> offsets) {
		Map<MessageQueue, Long> ours = new HashMap<>();
		List<TopicPartition> lost = new ArrayList<>();
		Set<MessageQueue> assigned = new HashSet<>(assignedQueues());
		offsets.forEach((partition, offset) -> {
			MessageQueue queue = this.numbers.queue(partition);
			if (assigned.contains(queue)) {
				ours.put(queue, offset);
			}
			else {
				lost.add(partition);
			}
		});
		if (!ours.isEmpty()) {
			store(ours);
		}
		if (!lost.isEmpty()) {
			throw new IllegalStateException("Commit of " + lost + " was not made: the queues belong to another member now");
		}
	}

	private void store(Map<MessageQueue, Long> offsets) {
		this.consumer.commit(offsets, false); // the client's memory: what it persists on rebalance and shutdown
		OffsetStore store = this.consumer.getOffsetStore();
		if (broadcast()) {
			store.persistAll(offsets.keySet());
			return;
		}
		for (Map.Entry<MessageQueue, Long> offset : offsets.entrySet()) {
			try {
				store.updateConsumeOffsetToBroker(offset.getKey(), offset.getValue(), false);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new SourceUnavailableException("Commit of " + offsets + " was interrupted", ex);
			}
			catch (Exception ex) {
				throw new SourceUnavailableException("Commit of " + offsets + " failed: " + ex.getMessage(), ex);
			}
		}
	}

	private Set<MessageQueue> assignedQueues() {
		try {
			return this.consumer.assignment();
		}
		catch (MQClientException ex) {
			throw new SourceUnavailableException("The assignment cannot be read: " + ex.getMessage(), ex);
		}
	}

	@Override
	public Map<TopicPartition, Long> endOffsets() {
		return (this.probe != null) ? this.probe.snapshot().endOffsets() : Map.of();
	}

	@Override
	public void wakeup() {
		this.wait.wakeup();
	}

	@Override
	public void close() {
		this.gate.close();
		if (this.probe != null) {
			this.probe.close();
		}
		if (this.consumer != null) {
			this.consumer.shutdown();
		}
	}

	private List<MessageQueue> queues(Collection<TopicPartition> partitions) {
		List<MessageQueue> queues = new ArrayList<>(partitions.size());
		for (TopicPartition partition : partitions) {
			queues.add(this.numbers.queue(partition));
		}
		return queues;
	}

}

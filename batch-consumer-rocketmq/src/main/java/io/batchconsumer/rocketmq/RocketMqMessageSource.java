package io.batchconsumer.rocketmq;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.consumer.store.OffsetStore;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;

import io.batchconsumer.core.ConsumptionMode;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.spi.MessageSource;
import io.batchconsumer.core.spi.RebalanceListener;
import io.batchconsumer.core.spi.SourceUnavailableException;

/**
 * A {@link MessageSource} on RocketMQ's {@code DefaultLitePullConsumer} with auto-commit off: a
 * message queue is a partition and the queue offset is the offset.
 *
 * <p>Clustering mode subscribes; RocketMQ's client rebalances on its own thread and the
 * {@link RebalanceGate} makes it wait until the engine drained and committed the queues that
 * leave. The engine learns of new queues from {@link QueueAssignment} before any of their
 * messages. Broadcast mode assigns every queue of the topics itself, from the {@link BrokerProbe}'s
 * lists, and keeps its offsets in RocketMQ's local offset file. A batch of the client reaches the
 * engine only where it continues its queue, and a queue that stalls is sought again ({@link QueuePositions}).
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

	/** Client queues polled into one returned list at most. */
	private static final int MAX_REQUESTS_PER_POLL = 16;

	private final ContainerOptions options;

	private final RocketMqClients clients;

	private final QueueNumbers numbers;

	private final OwnerWait wait = new OwnerWait();

	private final RebalanceGate gate;

	/** Made anew by each {@link #subscribe} attempt: a RocketMQ client that failed to start cannot start again. */
	private DefaultLitePullConsumer consumer;

	private final List<String> clientTopics = new ArrayList<>();

	/** Made with the consumer: where each queue continues. */
	private QueuePositions positions;

	private QueueAssignment assignment;

	private BrokerProbe probe;

	RocketMqMessageSource(ContainerOptions options, RocketMqClients clients, QueueNumbers numbers) {
		this.options = options;
		this.clients = clients;
		this.numbers = numbers;
		this.gate = new RebalanceGate(options.shutdownTimeout().plusSeconds(10).toNanos(), this.wait::wakeup);
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
		this.positions = new QueuePositions(this.options.id(), created, this.gate,
				RocketMqSettings.ALL.equals(selector), this::endOffset, System::nanoTime);
		this.assignment = new QueueAssignment(created, this.gate, this.numbers, listener, this.positions);
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
			this.positions.restartStalled();
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
			int from = this.positions.continuation(queue, pulled);
			if (from < 0) {
				continue;
			}
			TopicPartition partition = this.numbers.partition(queue);
			for (MessageExt message : pulled.subList(from, pulled.size())) {
				messages.add(RocketMqMessages.message(message, partition));
			}
			this.positions.advance(queue, pulled);
		}
		return messages;
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
		List<MessageQueue> queues = queues(partitions);
		this.consumer.pause(queues);
		this.positions.paused(queues);
	}

	/**
	 * Resumes fetching. The client's pull task of a paused queue looks again only every second,
	 * which stalled a queue for up to a second after each flow-control pause, so the queues are
	 * also restarted where they continue ({@link QueuePositions#restart}).
	 */
	@Override
	public void resume(Collection<TopicPartition> partitions) {
		List<MessageQueue> queues = queues(partitions);
		this.consumer.resume(queues);
		this.positions.restart(queues);
	}

	@Override
	public void seek(TopicPartition partition, long offset) {
		try {
			MessageQueue queue = this.numbers.queue(partition);
			this.consumer.seek(queue, offset);
			this.positions.sought(queue, offset);
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

	/** The broker's end offset of a held queue as last probed, -1 when not known. */
	private long endOffset(MessageQueue queue) {
		Long end = this.probe.snapshot().endOffsets().get(this.numbers.partition(queue));
		return (end != null) ? end : -1;
	}

	/** From the end offsets the client's pulls and the probe saw, against where the queue continues. */
	@Override
	public boolean isBehind(TopicPartition partition) {
		try {
			return this.positions != null && this.positions.isBehind(this.numbers.queue(partition));
		}
		catch (IllegalArgumentException ex) {
			return false; // not a queue of this source
		}
	}

	@Override
	public Map<TopicPartition, Long> endOffsets() {
		return (this.probe != null) ? this.probe.snapshot().endOffsets() : Map.of();
	}

	/**
	 * {@code rocketmq:<name servers>[/<namespace>][/broadcast:<instance>]}: the name server
	 * addresses, sorted, name the cluster whose queue offsets this source reads; in broadcast mode
	 * the offsets are this instance's own.
	 */
	@Override
	public String origin() {
		RocketMqSettings settings = this.clients.settings();
		String servers = Arrays.stream(settings.nameServer().split(";"))
			.map(String::trim)
			.filter((server) -> !server.isEmpty())
			.sorted()
			.collect(Collectors.joining(";"));
		return "rocketmq:" + servers + ((settings.namespace() != null) ? "/" + settings.namespace() : "")
				+ (broadcast() ? "/broadcast:" + settings.instanceId() : "");
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

package io.batchconsumer.rocketmq;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.common.message.MessageQueue;

import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.spi.RebalanceListener;

/**
 * Tells the engine which queues it has, on the owner thread, as Kafka's rebalance callbacks do:
 * revocations posted by the {@link RebalanceGate} are drained and committed
 * ({@link RebalanceListener#onRevoked}) while the client still holds the queues, and stay the
 * client's until it drops them (never assigned again in between, their cached batches dropped);
 * queues the client holds and the engine does not know are assigned before any of their messages
 * is returned; queues the client let go without a revocation (the gate stopped waiting) are lost
 * and commit nothing.
 *
 * <p>Threading: owner thread only; the client's state is read through its synchronized methods.
 */
final class QueueAssignment {

	private final DefaultLitePullConsumer consumer;

	private final RebalanceGate gate;

	private final QueueNumbers numbers;

	private final RebalanceListener listener;

	/** Where the source's queues continue: forgotten when a queue comes or goes, so no stale offset is used. */
	private final QueuePositions positions;

	private long seenChanges = -1;

	private final Set<MessageQueue> broadcastQueues = new HashSet<>();

	QueueAssignment(DefaultLitePullConsumer consumer, RebalanceGate gate, QueueNumbers numbers,
			RebalanceListener listener, QueuePositions positions) {
		this.consumer = consumer;
		this.gate = gate;
		this.numbers = numbers;
		this.listener = listener;
		this.positions = positions;
	}

	/** Drains and commits the queues a rebalance takes away, then lets the rebalance go on. */
	void handleRevocations() {
		RebalanceGate.Revocation revocation;
		while ((revocation = this.gate.takeRevocation()) != null) {
			try {
				List<MessageQueue> leaving = revocation.queues.stream().filter(this.gate::holds).toList();
				if (!leaving.isEmpty()) {
					try {
						this.listener.onRevoked(partitions(leaving));
					}
					finally {
						// Handed over, so that the client's cached batches and listing of them until it
						// drops them make no new assignment; released when the rebalance stopped waiting.
						if (!revocation.answer(() -> this.gate.handOver(leaving))) {
							this.gate.release(leaving);
						}
						this.positions.forget(leaving);
					}
				}
			}
			finally {
				revocation.done();
			}
		}
	}

	/**
	 * Broadcast mode: assigns every queue the probe found, old and new (queues are never taken away).
	 * @param topics the topics as the client names them
	 * @param found the queues per topic from the last probe
	 */
	void assignBroadcast(List<String> topics, Map<String, Set<MessageQueue>> found) {
		Set<MessageQueue> all = new HashSet<>(this.broadcastQueues);
		for (String topic : topics) {
			all.addAll(found.getOrDefault(topic, Set.of()));
		}
		if (all.size() > this.broadcastQueues.size()) {
			this.consumer.assign(all);
			this.broadcastQueues.addAll(all);
			this.gate.changed();
		}
	}

	/** Compares the client's assignment with the engine's when the client reported a change. */
	void reconcileIfChanged() {
		long changes = this.gate.changes();
		if (changes != this.seenChanges) {
			this.seenChanges = changes;
			reconcile();
		}
	}

	/** Compares the client's assignment with the engine's now. */
	void reconcile() {
		Set<MessageQueue> current = new HashSet<>(assignment());
		Set<MessageQueue> held = this.gate.held();
		List<MessageQueue> lost = held.stream().filter((queue) -> !current.contains(queue)).toList();
		List<MessageQueue> added = current.stream()
			.filter((queue) -> !held.contains(queue) && !this.gate.handingOver(queue))
			.toList();
		if (!lost.isEmpty()) {
			try {
				this.listener.onLost(partitions(lost));
			}
			finally {
				this.gate.release(lost);
				this.positions.forget(lost);
			}
		}
		if (!added.isEmpty()) {
			this.positions.forget(added);
			this.gate.hold(added);
			this.listener.onAssigned(partitions(added));
		}
	}

	private Set<MessageQueue> assignment() {
		try {
			return this.consumer.assignment();
		}
		catch (MQClientException ex) {
			return this.gate.held(); // not running: nothing changes
		}
	}

	private List<TopicPartition> partitions(Collection<MessageQueue> queues) {
		List<TopicPartition> partitions = new ArrayList<>(queues.size());
		for (MessageQueue queue : queues) {
			partitions.add(this.numbers.partition(queue));
		}
		return partitions;
	}

}

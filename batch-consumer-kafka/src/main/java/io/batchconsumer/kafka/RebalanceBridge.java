package io.batchconsumer.kafka;

import java.util.Collection;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.common.TopicPartition;

import io.batchconsumer.core.spi.RebalanceListener;

/**
 * Passes Kafka's rebalance callbacks to the engine. They run on the owner thread inside
 * {@code poll}, which is what the engine expects: on revoke it drains the partitions' in-flight
 * work and commits their watermark with {@code commitSync} (allowed inside the callback); on
 * loss it commits nothing. With the cooperative protocol only the partitions that move are
 * revoked or assigned; the wanted pauses are applied again after every assignment.
 *
 * <p>Kafka also calls the revoke callback from {@code close()}; by then the engine has drained and
 * committed everything and forgotten the partitions, so it has nothing left to do.
 *
 * <p>Threading: called by the consumer on the owner thread. The wakeup gate is closed for the
 * callback, so that workers finishing slices meanwhile cannot break the commit.
 */
final class RebalanceBridge implements ConsumerRebalanceListener {

	private final Consumer<?, ?> consumer;

	private final RebalanceListener listener;

	private final PausedPartitions paused;

	private final WakeupGate wakeups;

	RebalanceBridge(Consumer<?, ?> consumer, RebalanceListener listener, PausedPartitions paused, WakeupGate wakeups) {
		this.consumer = consumer;
		this.listener = listener;
		this.paused = paused;
		this.wakeups = wakeups;
	}

	@Override
	public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
		if (partitions.isEmpty()) {
			return;
		}
		boolean inPoll = this.wakeups.enterCallback();
		try {
			this.listener.onRevoked(KafkaRecords.ours(partitions));
		}
		finally {
			this.paused.forget(partitions);
			this.wakeups.exitCallback(inPoll);
		}
	}

	@Override
	public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
		boolean inPoll = this.wakeups.enterCallback();
		try {
			this.paused.forget(partitions);
			if (!partitions.isEmpty()) {
				this.listener.onAssigned(KafkaRecords.ours(partitions));
			}
			this.paused.reapply(this.consumer);
		}
		finally {
			this.wakeups.exitCallback(inPoll);
		}
	}

	@Override
	public void onPartitionsLost(Collection<TopicPartition> partitions) {
		if (partitions.isEmpty()) {
			return;
		}
		boolean inPoll = this.wakeups.enterCallback();
		try {
			this.listener.onLost(KafkaRecords.ours(partitions));
		}
		finally {
			this.paused.forget(partitions);
			this.wakeups.exitCallback(inPoll);
		}
	}

}

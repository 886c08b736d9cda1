package io.batchconsumer.core.spi;

import java.util.Collection;

import io.batchconsumer.core.TopicPartition;

/**
 * Told by a {@link MessageSource} when partitions come and go. Called on the owner thread,
 * from inside {@link MessageSource#poll}, like Kafka's {@code ConsumerRebalanceListener}.
 */
public interface RebalanceListener {

	/**
	 * These partitions were assigned; the next polls may return their messages.
	 * @param partitions the new partitions
	 */
	void onAssigned(Collection<TopicPartition> partitions);

	/**
	 * These partitions are being taken away in an orderly way. The engine drains their in-flight
	 * work and commits their watermark with {@link MessageSource#commitSync} before it returns.
	 * @param partitions the partitions being revoked
	 */
	void onRevoked(Collection<TopicPartition> partitions);

	/**
	 * These partitions are already owned by someone else (a lease expired, a session timed out).
	 * The engine commits nothing for them and discards their state.
	 * @param partitions the lost partitions
	 */
	default void onLost(Collection<TopicPartition> partitions) {
		onRevoked(partitions);
	}

}

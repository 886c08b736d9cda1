package io.batchconsumer.spring.testing;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.DeadLetter;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.SendResult;
import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.spi.DeadLetterSink;
import io.batchconsumer.core.spi.MessageSource;
import io.batchconsumer.core.spi.Transport;
import io.batchconsumer.core.testing.InMemoryBroker;
import io.batchconsumer.core.testing.InMemorySource;

/**
 * A transport in memory for tests that need no database, built on core's test fakes (its
 * {@link InMemoryBroker} stores the log and the committed positions, an {@link InMemorySource} per
 * container reads it): two partitions per topic, every source gets every partition of its topics,
 * dead letters kept in a list.
 *
 * <p>Threading: thread-safe; the broker synchronises per partition, each source belongs to its
 * container's owner thread.
 */
public class InMemoryTransport implements Transport {

	/** Partitions each topic has. */
	public static final int PARTITIONS = 2;

	private final InMemoryBroker broker = new InMemoryBroker();

	private final AtomicInteger unkeyed = new AtomicInteger();

	private final List<DeadLetter> deadLetters = new CopyOnWriteArrayList<>();

	private final Function<Object, byte[]> serializer;

	/** Creates a transport that stores String and byte[] payloads. */
	public InMemoryTransport() {
		this((payload) -> (payload instanceof byte[] bytes) ? bytes
				: payload.toString().getBytes(StandardCharsets.UTF_8));
	}

	/**
	 * Creates a transport.
	 * @param serializer writes payloads
	 */
	public InMemoryTransport(Function<Object, byte[]> serializer) {
		this.serializer = serializer;
	}

	@Override
	public MessageSource createSource(ContainerOptions options) {
		options.topics().forEach((topic) -> this.broker.createTopic(topic, PARTITIONS));
		return new InMemorySource(this.broker, options.group(), options.pullBatchSize(), List.of());
	}

	@Override
	public DeadLetterSink deadLetterSink(ContainerOptions options) {
		return this.deadLetters::add;
	}

	@Override
	public BatchProducer producer() {
		return new Producer();
	}

	/**
	 * Appends a raw message: to the partition of its key, or round robin without a key.
	 * @param topic the topic
	 * @param key the key or {@code null}
	 * @param payload the payload
	 * @return where it went
	 */
	public SendResult append(String topic, String key, byte[] payload) {
		this.broker.createTopic(topic, PARTITIONS);
		int partition = Math.floorMod((key != null) ? key.hashCode() : this.unkeyed.getAndIncrement(), PARTITIONS);
		long offset = this.broker.append(topic, partition, key, payload);
		return SendResult.stored(topic, partition, offset);
	}

	/**
	 * The dead letters written so far.
	 * @return the dead letters
	 */
	public List<DeadLetter> deadLetters() {
		return List.copyOf(this.deadLetters);
	}

	/**
	 * The committed position of a group on a partition.
	 * @param group the group
	 * @param partition the partition
	 * @return the next offset to read, 0 when nothing was committed
	 */
	public long committed(String group, TopicPartition partition) {
		return this.broker.committed(group, partition);
	}

	/**
	 * How many messages a partition holds.
	 * @param partition the partition
	 * @return the end offset, 0 for a topic nothing was sent to
	 */
	public long endOffset(TopicPartition partition) {
		return this.broker.partitions(partition.topic()).contains(partition) ? this.broker.endOffset(partition) : 0;
	}

	private final class Producer implements BatchProducer {

		@Override
		public List<SendResult> sendBatch(String topic, List<?> messages) {
			List<SendResult> results = new ArrayList<>();
			for (Object message : messages) {
				OutgoingMessage outgoing = (message instanceof OutgoingMessage out) ? out
						: OutgoingMessage.of(null, message);
				results.add(append(topic, outgoing.key(), InMemoryTransport.this.serializer.apply(outgoing.payload())));
			}
			return results;
		}

		@Override
		public void sendOneWayBatch(String topic, List<?> messages) {
			sendBatch(topic, messages);
		}

	}

}

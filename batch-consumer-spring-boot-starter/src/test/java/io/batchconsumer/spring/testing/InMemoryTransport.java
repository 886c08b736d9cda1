package io.batchconsumer.spring.testing;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.DeadLetter;
import io.batchconsumer.core.DeadLetterSink;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.MessageSource;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.RebalanceListener;
import io.batchconsumer.core.SendResult;
import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.Transport;

/**
 * A transport in memory for tests that need no database: two partitions per topic, every
 * source gets every partition, committed positions per group.
 *
 * <p>Threading: every method synchronises on the transport.
 */
public class InMemoryTransport implements Transport {

	/** Partitions each topic has. */
	public static final int PARTITIONS = 2;

	private final Map<TopicPartition, List<Message<byte[]>>> log = new HashMap<>();

	private final Map<String, Long> committed = new ConcurrentHashMap<>();

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
		return new Source(options.group(), options.pullBatchSize());
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
	 * Appends a raw message.
	 * @param topic the topic
	 * @param key the key or {@code null}
	 * @param payload the payload
	 * @return where it went
	 */
	public synchronized SendResult append(String topic, String key, byte[] payload) {
		int partition = (key != null) ? Math.floorMod(key.hashCode(), PARTITIONS)
				: Math.floorMod(this.log.values().stream().mapToInt(List::size).sum(), PARTITIONS);
		List<Message<byte[]>> messages = this.log.computeIfAbsent(new TopicPartition(topic, partition),
				(tp) -> new ArrayList<>());
		messages.add(Message.raw(topic, partition, messages.size(), key, payload, null, System.currentTimeMillis()));
		notifyAll();
		return SendResult.stored(topic, partition, messages.size() - 1);
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
	 * @return the next offset to read, or -1 when nothing was committed
	 */
	public long committed(String group, TopicPartition partition) {
		return this.committed.getOrDefault(group + "/" + partition, -1L);
	}

	/**
	 * How many messages a partition holds.
	 * @param partition the partition
	 * @return the end offset
	 */
	public synchronized long endOffset(TopicPartition partition) {
		return this.log.getOrDefault(partition, List.of()).size();
	}

	private synchronized List<Message<byte[]>> read(TopicPartition partition, long from, int max) {
		List<Message<byte[]>> messages = this.log.getOrDefault(partition, List.of());
		return List.copyOf(messages.subList((int) Math.min(from, messages.size()),
				(int) Math.min(from + max, messages.size())));
	}

	private synchronized void await(Duration timeout) {
		try {
			wait(Math.max(1, Math.min(timeout.toMillis(), 20)));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
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

	/** Owns every partition of its topics. Threading: the container's owner thread only. */
	private final class Source implements MessageSource {

		private final String group;

		private final int pullBatchSize;

		private final Map<TopicPartition, Long> positions = new HashMap<>();

		private final Set<TopicPartition> paused = new HashSet<>();

		private Collection<String> topics = List.of();

		private RebalanceListener listener;

		private boolean assigned;

		Source(String group, int pullBatchSize) {
			this.group = group;
			this.pullBatchSize = pullBatchSize;
		}

		@Override
		public void subscribe(Collection<String> topics, RebalanceListener listener) {
			this.topics = List.copyOf(topics);
			this.listener = listener;
		}

		@Override
		public List<Message<byte[]>> poll(Duration timeout) {
			if (!this.assigned) {
				this.assigned = true;
				List<TopicPartition> partitions = new ArrayList<>();
				for (String topic : this.topics) {
					for (int p = 0; p < PARTITIONS; p++) {
						TopicPartition partition = new TopicPartition(topic, p);
						partitions.add(partition);
						this.positions.put(partition, Math.max(0, committed(this.group, partition)));
					}
				}
				this.listener.onAssigned(partitions);
			}
			List<Message<byte[]>> result = fetch();
			if (result.isEmpty()) {
				await(timeout);
				result = fetch();
			}
			return result;
		}

		private List<Message<byte[]>> fetch() {
			List<Message<byte[]>> result = new ArrayList<>();
			for (Map.Entry<TopicPartition, Long> position : this.positions.entrySet()) {
				if (!this.paused.contains(position.getKey())) {
					List<Message<byte[]>> read = read(position.getKey(), position.getValue(), this.pullBatchSize);
					position.setValue(position.getValue() + read.size());
					result.addAll(read);
				}
			}
			return result;
		}

		@Override
		public void pause(Collection<TopicPartition> partitions) {
			this.paused.addAll(partitions);
		}

		@Override
		public void resume(Collection<TopicPartition> partitions) {
			this.paused.removeAll(partitions);
		}

		@Override
		public void seek(TopicPartition partition, long offset) {
			this.positions.put(partition, offset);
		}

		@Override
		public void commitSync(Map<TopicPartition, Long> offsets) {
			offsets.forEach((partition, offset) -> InMemoryTransport.this.committed.put(this.group + "/" + partition, offset));
		}

		@Override
		public void wakeup() {
			synchronized (InMemoryTransport.this) {
				InMemoryTransport.this.notifyAll();
			}
		}

		@Override
		public void close() {
		}

	}

}

package io.batchconsumer.core.internal;

import java.nio.charset.StandardCharsets;
import java.util.List;

import io.batchconsumer.core.Message;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.spi.RebalanceListener;
import io.batchconsumer.core.testing.InMemoryBroker;
import io.batchconsumer.core.testing.InMemorySource;

/**
 * What the owner thread does to a partition, done by hand in a unit test: an in-memory source
 * subscribed and polled on the test's thread (so asynchronous commits call back there, as they do
 * on the owner thread), and partitions whose messages are fetched, handed out and finished step by
 * step.
 *
 * <p>Threading: the test's thread only.
 */
final class OwnerSteps {

	static final String TOPIC = "t";

	final InMemoryBroker broker = new InMemoryBroker();

	final Partitions partitions = new Partitions(Ordering.UNORDERED);

	final InMemorySource source;

	OwnerSteps(int partitionCount) {
		this.broker.createTopic(TOPIC, partitionCount);
		this.source = new InMemorySource(this.broker, "g", 500, List.of());
		this.source.subscribe(List.of(TOPIC), new RebalanceListener() {
			@Override
			public void onAssigned(java.util.Collection<TopicPartition> assigned) {
				assigned.forEach(OwnerSteps.this.partitions::assign);
			}

			@Override
			public void onRevoked(java.util.Collection<TopicPartition> revoked) {
				revoked.forEach(OwnerSteps.this.partitions::remove);
			}
		});
		pollSource();
	}

	/** One poll of the source, returning at once: assignments and due commit callbacks run here. */
	void pollSource() {
		this.source.poll(java.time.Duration.ZERO);
	}

	PartitionState partition(int partition) {
		return this.partitions.get(new TopicPartition(TOPIC, partition));
	}

	/** Buffers {@code count} new messages at the partition's fetch position. */
	void fetch(PartitionState state, int count) {
		long first = Math.max(0, state.fetchedOffset());
		for (long offset = first; offset < first + count; offset++) {
			state.add(Message.raw(TOPIC, state.partition.partition(), offset, null,
					("m" + offset).getBytes(StandardCharsets.UTF_8), null, 0));
		}
	}

	/** Hands the whole buffer out as one slice and returns it, running. */
	Slice start(PartitionState state, long nowNanos) {
		List<Message<byte[]>> run = state.take(state.buffered());
		Slice slice = state.openBatch(run.get(0).offset(), run.get(run.size() - 1).offset(), List.of(run), run.size(),
				nowNanos)[0];
		state.startSlice();
		return slice;
	}

	/** The slice's worker is done and the owner takes the completion. */
	void finish(Slice slice) {
		slice.partition.sliceEnded();
		slice.partition.finishSlice(slice);
	}

	/** Fetches, runs and finishes {@code count} messages: the watermark moves by that many. */
	void work(PartitionState state, int count, long nowNanos) {
		fetch(state, count);
		finish(start(state, nowNanos));
	}

	long committed(int partition) {
		return this.broker.committed("g", new TopicPartition(TOPIC, partition));
	}

}

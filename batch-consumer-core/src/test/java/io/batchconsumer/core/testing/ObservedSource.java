package io.batchconsumer.core.testing;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;

import io.batchconsumer.core.Message;
import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.spi.MessageSource;
import io.batchconsumer.core.spi.RebalanceListener;

/**
 * A real source the engine drives (JDBC in the fault tests, the starter's refresh tests), shown to a {@link ProcessingGuarantee}: what each poll
 * fetched, each assignment, and each commit the engine attempts (mirrored into an
 * {@link InMemoryBroker} that holds the same messages at the same offsets, where the guarantee
 * checks that no commit passes an unfinished message).
 *
 * <p>Threading: called by the container's owner thread only, like the source it wraps.
 */
public final class ObservedSource implements MessageSource {

	private final MessageSource source;

	private final InMemoryBroker mirror;

	private final String group;

	private final ProcessingGuarantee guarantee;

	/**
	 * Wraps a source.
	 * @param source the real source
	 * @param mirror holds the same messages at the same offsets; every commit attempt is mirrored into it
	 * @param group the group whose commits are mirrored
	 * @param guarantee told of assignments and fetches
	 */
	public ObservedSource(MessageSource source, InMemoryBroker mirror, String group, ProcessingGuarantee guarantee) {
		this.source = source;
		this.mirror = mirror;
		this.group = group;
		this.guarantee = guarantee;
	}

	@Override
	public void subscribe(Collection<String> topics, RebalanceListener listener) {
		this.source.subscribe(topics, new RebalanceListener() {

			@Override
			public void onAssigned(Collection<TopicPartition> partitions) {
				// A queue taken again starts from the stored position, which may be below a failed commit.
				ObservedSource.this.guarantee.allowRewind();
				ObservedSource.this.guarantee.assigned(partitions);
				listener.onAssigned(partitions);
			}

			@Override
			public void onRevoked(Collection<TopicPartition> partitions) {
				listener.onRevoked(partitions);
			}

			@Override
			public void onLost(Collection<TopicPartition> partitions) {
				listener.onLost(partitions);
			}

		});
	}

	@Override
	public List<Message<byte[]>> poll(Duration timeout) {
		List<Message<byte[]>> messages = this.source.poll(timeout);
		this.guarantee.fetched(messages);
		return messages;
	}

	@Override
	public void pause(Collection<TopicPartition> partitions) {
		this.source.pause(partitions);
	}

	@Override
	public void resume(Collection<TopicPartition> partitions) {
		this.source.resume(partitions);
	}

	@Override
	public void seek(TopicPartition partition, long offset) {
		this.source.seek(partition, offset);
	}

	@Override
	public void commitSync(Map<TopicPartition, Long> offsets) {
		offsets.forEach((partition, offset) -> this.mirror.commit(this.group, partition, offset));
		this.source.commitSync(offsets);
	}

	@Override
	public void pullBatchSize(int size) {
		this.source.pullBatchSize(size);
	}

	@Override
	public Map<TopicPartition, Long> committed(Collection<TopicPartition> partitions) {
		return this.source.committed(partitions);
	}

	@Override
	public Map<TopicPartition, Long> endOffsets() {
		return this.source.endOffsets();
	}

	@Override
	public boolean isBehind(TopicPartition partition) {
		return this.source.isBehind(partition);
	}

	@Override
	public boolean awaitsCommit(TopicPartition partition, long position) {
		return this.source.awaitsCommit(partition, position);
	}

	@Override
	public void wakeup() {
		this.source.wakeup();
	}

	@Override
	public void close() {
		this.source.close();
	}

}

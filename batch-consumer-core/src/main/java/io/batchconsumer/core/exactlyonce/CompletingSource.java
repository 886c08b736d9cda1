package io.batchconsumer.core.exactlyonce;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.jspecify.annotations.Nullable;

import io.batchconsumer.core.Message;
import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.spi.MessageSource;
import io.batchconsumer.core.spi.RebalanceListener;

/**
 * A source that keeps the completion marks in step with the assignment: a partition's marks at or
 * above its committed position ({@link MessageSource#committed}) are read once when it is assigned
 * and forgotten when it goes; each committed position lets the
 * marks below it go (at once in memory, after the retention in the table).
 *
 * <p>Threading: like every {@link MessageSource}, used by the owner thread only (but
 * {@link #wakeup()}).
 */
final class CompletingSource implements MessageSource {

	private static final Logger logger = LoggerFactory.getLogger(CompletingSource.class);

	private final ExactlyOnce exactlyOnce;

	private final MessageSource delegate;

	CompletingSource(ExactlyOnce exactlyOnce, MessageSource delegate) {
		this.exactlyOnce = exactlyOnce;
		this.delegate = delegate;
	}

	@Override
	public void subscribe(Collection<String> topics, RebalanceListener listener) {
		this.delegate.subscribe(topics, new RebalanceListener() {

			/**
			 * Reads the marks, then tells the engine. A failure must not keep the engine from hearing
			 * of the partitions (the source holds them: unannounced they would be fetched, dropped and
			 * never committed). Without the committed positions every mark is read; a partition whose
			 * marks cannot be read now reads them all at its first delivery ({@link ExactlyOnce#marks}),
			 * and a delivery that cannot read them fails and is retried like any other.
			 */
			@Override
			public void onAssigned(Collection<TopicPartition> partitions) {
				Map<TopicPartition, Long> committed = committedOrNone(partitions);
				for (TopicPartition partition : partitions) {
					load(partition, committed.get(partition));
				}
				listener.onAssigned(partitions);
			}

			@Override
			public void onRevoked(Collection<TopicPartition> partitions) {
				listener.onRevoked(partitions);
				partitions.forEach(CompletingSource.this.exactlyOnce.claims()::forget);
			}

			@Override
			public void onLost(Collection<TopicPartition> partitions) {
				listener.onLost(partitions);
				partitions.forEach(CompletingSource.this.exactlyOnce.claims()::forget);
			}

		});
	}

	private Map<TopicPartition, Long> committedOrNone(Collection<TopicPartition> partitions) {
		try {
			return this.delegate.committed(partitions);
		}
		catch (RuntimeException ex) {
			logger.warn("The committed positions of {} cannot be read: their marks are read from offset 0: {}",
					partitions, ex.toString());
			return Map.of();
		}
	}

	private void load(TopicPartition partition, Long committed) {
		try {
			this.exactlyOnce.claims().assigned(partition, committed);
		}
		catch (RuntimeException ex) {
			logger.warn("The completion marks of {} cannot be read now; its first delivery reads them: {}", partition,
					ex.toString());
		}
	}

	@Override
	public List<Message<byte[]>> poll(Duration timeout) {
		return this.delegate.poll(timeout);
	}

	@Override
	public void pause(Collection<TopicPartition> partitions) {
		this.delegate.pause(partitions);
	}

	@Override
	public void resume(Collection<TopicPartition> partitions) {
		this.delegate.resume(partitions);
	}

	/** Seeks, and lets the marks follow a seek below the committed position ({@link ExactlyOnce#sought}). */
	@Override
	public void seek(TopicPartition partition, long offset) {
		this.delegate.seek(partition, offset);
		try {
			this.exactlyOnce.claims().sought(partition, offset);
		}
		catch (RuntimeException ex) {
			logger.warn("The completion marks of {} cannot be read after the seek to {}; its next delivery reads them: {}",
					partition, offset, ex.toString());
		}
	}

	@Override
	public void commitSync(Map<TopicPartition, Long> offsets) {
		Map<TopicPartition, Long> claims = ownerEpochs(offsets);
		this.delegate.commitSync(offsets);
		offsets.forEach((partition, position) -> this.exactlyOnce.claims().committed(partition, position, claims.get(partition)));
	}

	/**
	 * Commits; when it succeeds the marks below the positions go, unless the partition was claimed
	 * again in between (a seek): Kafka calls a callback at a later poll or inside the next commit,
	 * which may be the seek's, and its position says nothing of the marks of the new claim.
	 */
	@Override
	public void commitAsync(Map<TopicPartition, Long> offsets, BiConsumer<Map<TopicPartition, Long>, Throwable> callback) {
		Map<TopicPartition, Long> claims = ownerEpochs(offsets);
		this.delegate.commitAsync(offsets, (committed, failure) -> {
			if (failure == null) {
				committed.forEach((partition, position) -> this.exactlyOnce.claims().committed(partition, position,
						claims.getOrDefault(partition, -1L)));
			}
			callback.accept(committed, failure);
		});
	}

	private Map<TopicPartition, Long> ownerEpochs(Map<TopicPartition, Long> offsets) {
		Map<TopicPartition, Long> claims = new HashMap<>(offsets.size() * 2);
		offsets.keySet().forEach((partition) -> claims.put(partition, this.exactlyOnce.claims().ownerEpoch(partition)));
		return claims;
	}

	@Override
	public Map<TopicPartition, Long> committed(Collection<TopicPartition> partitions) {
		return this.delegate.committed(partitions);
	}

	@Override
	public String origin() {
		return this.delegate.origin();
	}

	@Override
	public @Nullable String exactlyOnceRefusal() {
		return this.delegate.exactlyOnceRefusal();
	}

	@Override
	public Map<TopicPartition, Long> endOffsets() {
		return this.delegate.endOffsets();
	}

	@Override
	public void pullBatchSize(int size) {
		this.delegate.pullBatchSize(size);
	}

	@Override
	public boolean isBehind(TopicPartition partition) {
		return this.delegate.isBehind(partition);
	}

	@Override
	public boolean awaitsCommit(TopicPartition partition, long position) {
		return this.delegate.awaitsCommit(partition, position);
	}

	@Override
	public void wakeup() {
		this.delegate.wakeup();
	}

	@Override
	public void close() {
		try {
			this.delegate.close();
		}
		finally {
			this.exactlyOnce.cleaner().close();
		}
	}

}

package io.batchconsumer.kafka;

import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

import org.apache.kafka.common.errors.UnreleasedInstanceIdException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.batchconsumer.core.Message;
import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.spi.MessageSource;
import io.batchconsumer.core.spi.RebalanceListener;
import io.batchconsumer.core.spi.SourceUnavailableException;

/**
 * A static member's source that joins again after the group refused its instance id. On the
 * consumer group protocol (KIP-848) a static member that died without leaving — killed, or its
 * machine lost — keeps its instance id in the group until its session times out, and a new
 * consumer with that id is refused with {@link UnreleasedInstanceIdException}, after which the
 * client is in a fatal state for good: it neither heartbeats nor fetches again. A service restarted
 * at once after a crash would so consume nothing until it is restarted once more. This source then
 * drops the refused consumer (its partitions, if any, are lost to the engine), reports itself
 * unavailable, and makes a new one every {@link #REJOIN_INTERVAL} until the old member's session
 * ended and the group takes it. (The classic protocol replaces the old member at once.)
 *
 * <p>Threading: like the sources it wraps, only the owner thread calls it, except
 * {@link #wakeup()}, which any thread may call.
 */
final class RejoiningSource implements MessageSource {

	/** How often a refused static member tries again: a few times per broker session timeout (45 s by default). */
	static final Duration REJOIN_INTERVAL = Duration.ofSeconds(2);

	private static final Logger logger = LoggerFactory.getLogger(RejoiningSource.class);

	private final Supplier<MessageSource> factory;

	private final String description;

	/** The source in use; {@code null} between a refusal and the next attempt. Volatile for {@link #wakeup()}. */
	private volatile @Nullable MessageSource delegate;

	private Collection<String> topics;

	private RebalanceListener listener;

	/** The partitions the current source assigned and did not revoke. */
	private final Set<TopicPartition> assigned = new HashSet<>();

	private long nextAttemptNanos;

	/**
	 * @param factory makes a new source, not yet subscribed
	 * @param description the listener and instance id, for messages
	 */
	RejoiningSource(Supplier<MessageSource> factory, String description) {
		this.factory = factory;
		this.description = description;
		this.delegate = factory.get();
	}

	@Override
	public void subscribe(Collection<String> topics, RebalanceListener listener) {
		this.topics = List.copyOf(topics);
		this.listener = listener;
		current().subscribe(this.topics, tracking());
	}

	private RebalanceListener tracking() {
		return new RebalanceListener() {

			@Override
			public void onAssigned(Collection<TopicPartition> partitions) {
				RejoiningSource.this.assigned.addAll(partitions);
				RejoiningSource.this.listener.onAssigned(partitions);
			}

			@Override
			public void onRevoked(Collection<TopicPartition> partitions) {
				RejoiningSource.this.listener.onRevoked(partitions);
				RejoiningSource.this.assigned.removeAll(partitions);
			}

			@Override
			public void onLost(Collection<TopicPartition> partitions) {
				RejoiningSource.this.listener.onLost(partitions);
				RejoiningSource.this.assigned.removeAll(partitions);
			}

		};
	}

	@Override
	public List<Message<byte[]>> poll(Duration timeout) {
		try {
			return current().poll(timeout);
		}
		catch (UnreleasedInstanceIdException ex) {
			drop();
			throw new SourceUnavailableException("The group still holds the static member of " + this.description
					+ " that died without leaving; joining again every " + REJOIN_INTERVAL.toSeconds()
					+ " s until its session ends", ex);
		}
	}

	/** The source in use, made anew when the last one was refused and the interval passed. */
	private MessageSource current() {
		MessageSource source = this.delegate;
		if (source != null) {
			return source;
		}
		if (System.nanoTime() - this.nextAttemptNanos < 0) {
			throw new SourceUnavailableException("Waiting to join the group again as " + this.description, null);
		}
		source = this.factory.get();
		source.subscribe(this.topics, tracking());
		this.delegate = source;
		logger.info("Joining the group again as {}", this.description);
		return source;
	}

	/** Loses what the refused source held and closes it. */
	private void drop() {
		if (!this.assigned.isEmpty()) {
			List<TopicPartition> lost = List.copyOf(this.assigned);
			this.assigned.clear();
			this.listener.onLost(lost);
		}
		MessageSource source = this.delegate;
		this.delegate = null;
		this.nextAttemptNanos = System.nanoTime() + REJOIN_INTERVAL.toNanos();
		try {
			source.close();
		}
		catch (RuntimeException ex) {
			logger.debug("Closing the refused consumer of {} failed", this.description, ex);
		}
	}

	@Override
	public void pause(Collection<TopicPartition> partitions) {
		MessageSource source = this.delegate;
		if (source != null) {
			source.pause(partitions);
		}
	}

	@Override
	public void resume(Collection<TopicPartition> partitions) {
		MessageSource source = this.delegate;
		if (source != null) {
			source.resume(partitions);
		}
	}

	@Override
	public void seek(TopicPartition partition, long offset) {
		current().seek(partition, offset);
	}

	@Override
	public void commitSync(Map<TopicPartition, Long> offsets) {
		current().commitSync(offsets);
	}

	@Override
	public void commitAsync(Map<TopicPartition, Long> offsets,
			BiConsumer<Map<TopicPartition, Long>, @Nullable Throwable> callback) {
		current().commitAsync(offsets, callback);
	}

	@Override
	public void pullBatchSize(int size) {
		current().pullBatchSize(size);
	}

	@Override
	public Map<TopicPartition, Long> endOffsets() {
		MessageSource source = this.delegate;
		return (source != null) ? source.endOffsets() : Map.of();
	}

	@Override
	public boolean isBehind(TopicPartition partition) {
		MessageSource source = this.delegate;
		return source != null && source.isBehind(partition);
	}

	@Override
	public Map<TopicPartition, Long> committed(Collection<TopicPartition> partitions) {
		return current().committed(partitions);
	}

	@Override
	public String origin() {
		return current().origin();
	}

	@Override
	public @Nullable String exactlyOnceRefusal() {
		MessageSource source = this.delegate;
		return (source != null) ? source.exactlyOnceRefusal() : null;
	}

	@Override
	public void wakeup() {
		MessageSource source = this.delegate;
		if (source != null) {
			source.wakeup();
		}
	}

	@Override
	public void close() {
		MessageSource source = this.delegate;
		this.delegate = null;
		if (source != null) {
			source.close();
		}
	}

}

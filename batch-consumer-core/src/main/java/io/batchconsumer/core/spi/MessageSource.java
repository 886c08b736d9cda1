package io.batchconsumer.core.spi;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

import org.jspecify.annotations.Nullable;

import io.batchconsumer.core.Message;
import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.Tuning;

/**
 * The transport SPI for reading: one source per container, used only by the container's owner
 * thread, except {@link #wakeup()}.
 *
 * <p>Threading: not thread-safe, like {@code KafkaConsumer}. Every method but {@code wakeup}
 * is called by the owner thread; {@code wakeup} is called by workers to cut a blocking
 * {@link #poll} short.
 */
public interface MessageSource extends AutoCloseable {

	/**
	 * Starts consuming these topics. Assignments arrive through the listener from inside
	 * {@link #poll}.
	 * @param topics the topics
	 * @param listener told of assignments and revocations
	 */
	void subscribe(Collection<String> topics, RebalanceListener listener);

	/**
	 * Returns the next messages of assigned, non-paused partitions, each partition's in offset
	 * order, waiting up to the timeout when none are ready. Returns early, possibly with nothing,
	 * after {@link #wakeup()}.
	 * @param timeout the longest wait
	 * @return the messages, possibly none
	 * @throws SourceUnavailableException when the store cannot be reached; the engine backs off and polls again
	 */
	List<Message<byte[]>> poll(Duration timeout);

	/**
	 * Stops returning messages of these partitions until resumed.
	 * @param partitions assigned partitions
	 */
	void pause(Collection<TopicPartition> partitions);

	/**
	 * Returns messages of these partitions again.
	 * @param partitions assigned partitions
	 */
	void resume(Collection<TopicPartition> partitions);

	/**
	 * Makes the next poll of this partition start at the offset; drops what was fetched beyond it.
	 * @param partition an assigned partition
	 * @param offset the next offset to read
	 */
	void seek(TopicPartition partition, long offset);

	/**
	 * Commits these positions (each the next offset to read) and waits until they are stored.
	 * @param offsets the positions per partition
	 * @throws RuntimeException when the commit failed or was fenced (the partition is no longer ours)
	 */
	void commitSync(Map<TopicPartition, Long> offsets);

	/**
	 * Changes the most messages one poll returns, on a running source (runtime tuning, see
	 * {@link Tuning}). Called on the owner thread.
	 * @param size the new pull batch size
	 * @throws UnsupportedOperationException when this source cannot change it while running
	 */
	default void pullBatchSize(int size) {
		throw new UnsupportedOperationException(getClass().getSimpleName()
				+ " cannot change pull-batch-size while running; restart the container to change it");
	}

	/**
	 * Commits these positions without waiting; the callback runs on the owner thread, during a
	 * later {@link #poll} or at once, with {@code null} or the failure. The default commits
	 * synchronously.
	 * @param offsets the positions per partition
	 * @param callback told of the outcome
	 */
	default void commitAsync(Map<TopicPartition, Long> offsets,
			BiConsumer<Map<TopicPartition, Long>, @Nullable Throwable> callback) {
		try {
			commitSync(offsets);
			callback.accept(offsets, null);
		}
		catch (RuntimeException ex) {
			callback.accept(offsets, ex);
		}
	}

	/**
	 * The end offset (next offset to be written) of each partition, for lag meters, when known.
	 * Transports refresh it at a modest interval, never on every poll. The default knows nothing.
	 * @return end offsets per partition, possibly empty
	 */
	default Map<TopicPartition, Long> endOffsets() {
		return Map.of();
	}

	/**
	 * Whether this partition is known to hold messages past those fetched, as far as the source
	 * knows without asking the broker (a Kafka consumer learns each partition's end from every
	 * fetch). The engine commits a partition that went idle before the interval only when it is not
	 * behind: one that only waits for its next fetch is not idle, and its early commits would cost
	 * the broker a request each while records keep coming (docs/benchmarks.md, "Idle commits"). Called on
	 * the owner thread; must be cheap. The default knows nothing: {@code false}.
	 * @param partition an assigned partition
	 * @return {@code true} when more messages are known to wait
	 */
	default boolean isBehind(TopicPartition partition) {
		return false;
	}

	/**
	 * Whether the source holds off fetching until this partition is committed up to this position,
	 * so that the engine should commit it now instead of at the end of {@code commit.interval}. A
	 * Kafka share consumer, for one, polls again only once every record of its last poll is
	 * acknowledged, and a commit is the acknowledgement. Asked on the owner thread, on every turn of
	 * its loop, of each partition whose watermark passed what was committed; must be cheap, and true
	 * only when a commit to this position would let the source fetch more (each early commit costs
	 * the broker a request). The default holds off nothing: {@code false}.
	 * @param partition an assigned partition
	 * @param position the position a commit would carry now (the next offset to read)
	 * @return {@code true} to have this partition committed now
	 */
	default boolean awaitsCommit(TopicPartition partition, long position) {
		return false;
	}

	/**
	 * The committed positions (each the next offset to read) of partitions just assigned, where
	 * known. Called on the owner thread from {@link RebalanceListener#onAssigned}, before any of
	 * their messages was polled: exactly-once processing reads only the completion marks at or
	 * above them. The default knows none (then every mark of the partition is read).
	 * @param partitions partitions just assigned
	 * @return the committed position of each partition that has one
	 */
	default Map<TopicPartition, Long> committed(Collection<TopicPartition> partitions) {
		return Map.of();
	}

	/**
	 * Where the positions this source reads belong: its transport and cluster, such as
	 * {@code kafka:<cluster id>}. Exactly-once processing keeps its completion marks apart per
	 * origin, so a mark made for one source never finishes a message of another whose topic,
	 * partition and offset look the same (a service moved from its database to Kafka). Called on the
	 * owner thread when the first partitions are assigned; may ask the broker once. In broadcast mode,
	 * where each instance keeps positions of its own, the origin names the instance too
	 * ({@code .../broadcast:<instance>}), so the instances' marks stay apart. The default, the empty
	 * origin, is the JDBC transport's in clustering mode, whose positions belong to the database of
	 * the marks.
	 * @return the origin, or {@code ""}
	 * @throws SourceUnavailableException when it cannot be learnt now
	 */
	default String origin() {
		return "";
	}

	/**
	 * Why this source cannot back {@code processing: exactly-once}, whose completion marks are kept
	 * per committed position; {@code null} when it can. The default can.
	 * @return the reason, naming what to change, or {@code null}
	 */
	default @Nullable String exactlyOnceRefusal() {
		return null;
	}

	/**
	 * Makes a blocked or the next {@link #poll} return at once. Safe from any thread.
	 */
	void wakeup();

	/**
	 * Releases the source. Called by the owner thread after the final commit.
	 */
	@Override
	void close();

}

package io.batchconsumer.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.IllegalGenerationException;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.RecordDeserializationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnknownMemberIdException;
import org.apache.kafka.common.errors.WakeupException;

import io.batchconsumer.core.ConsumptionMode;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.spi.DeadLetterSink;
import io.batchconsumer.core.spi.MessageSource;
import io.batchconsumer.core.spi.RebalanceListener;
import io.batchconsumer.core.spi.SourceUnavailableException;

/**
 * A {@link MessageSource} on a {@code KafkaConsumer<String, byte[]>} with manual commits.
 *
 * <p>Clustering mode subscribes with the cooperative-sticky assignor: a rebalance revokes only the
 * partitions that move, and the engine drains and commits them inside the revoke callback; lost
 * partitions commit nothing. Broadcast mode assigns every partition itself (see
 * {@link BroadcastAssignment}) in the group {@code <group>-<instance id>}.
 *
 * <p>A record the consumer cannot deserialize, or one that fails its CRC check, is written to the
 * dead letter with whatever the consumer exposes of it and skipped with a seek past it
 * ({@link UnreadableRecords}). If that write fails, the poll fails with
 * {@link SourceUnavailableException} and the next poll meets the record again: nothing is lost.
 *
 * <p>A consumer rides out an unreachable cluster without an error; when no broker answered for a
 * while ({@link BrokerSilence}) a poll that returned nothing throws {@link SourceUnavailableException},
 * so that the container reports the outage.
 *
 * <p>Threading: like {@code KafkaConsumer}, only the container's owner thread calls it, except
 * {@link #wakeup()}, which any thread may call. The consumer, the pause set and the end-offset
 * cache are owned by the owner thread.
 */
public final class KafkaMessageSource implements MessageSource {

	/** How long a synchronous commit may take before the broker counts as unreachable. */
	static final Duration COMMIT_TIMEOUT = Duration.ofSeconds(10);

	private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);

	/**
	 * How long a commit or the close may wait while no broker has answered for the silence limit:
	 * one more try, not the full timeout, so that a stop during an outage is not held up by calls
	 * that cannot succeed (what is not committed is delivered again, as after a crash).
	 */
	static final Duration SILENT_TIMEOUT = Duration.ofSeconds(1);

	/**
	 * How long a seek may wait, in all, for the partition's first and end offsets: a few broker
	 * round trips, short because the owner thread neither polls nor commits while it waits.
	 */
	static final Duration SEEK_CHECK_TIMEOUT = Duration.ofSeconds(1);

	/** Commits are tried again after a stray wakeup; more than a few in a row is a bug. */
	private static final int WAKEUP_RETRIES = 5;

	private final ContainerOptions options;

	private final Consumer<String, byte[]> consumer;

	private final UnreadableRecords unreadable;

	private final WakeupGate wakeups;

	private final PausedPartitions paused = new PausedPartitions();

	private final EndOffsetCache endOffsets = new EndOffsetCache();

	private final BrokerSilence silence;

	private BroadcastAssignment broadcast;

	private RebalanceListener listener;

	/** The cluster's origin for exactly-once marks; asked on the owner thread. */
	private final Supplier<String> origin;

	/**
	 * Creates a source on a consumer that was configured by {@link KafkaConfigs#consumer}.
	 * @param options the container's options
	 * @param consumer the consumer, which this source owns and closes
	 * @param unreadableSink where records that cannot be deserialized go, or {@code null} to log and skip them
	 */
	KafkaMessageSource(ContainerOptions options, Consumer<String, byte[]> consumer, DeadLetterSink unreadableSink) {
		this(options, consumer, unreadableSink, BrokerSilence.limit(Map.of()), () -> "kafka:");
	}

	/**
	 * Creates a source on a consumer that was configured by {@link KafkaConfigs#consumer}.
	 * @param options the container's options
	 * @param consumer the consumer, which this source owns and closes
	 * @param unreadableSink where records that cannot be deserialized go, or {@code null} to log and skip them
	 * @param silenceLimit how long no broker may answer before the source reports itself unavailable
	 * @param origin the cluster's origin ({@link #origin()})
	 */
	KafkaMessageSource(ContainerOptions options, Consumer<String, byte[]> consumer, DeadLetterSink unreadableSink,
			Duration silenceLimit, Supplier<String> origin) {
		this.origin = origin;
		this.options = options;
		this.consumer = consumer;
		this.unreadable = new UnreadableRecords(options, consumer, unreadableSink);
		this.wakeups = new WakeupGate(consumer);
		this.silence = new BrokerSilence(silenceLimit, System.nanoTime());
	}

	/** {@code kafka:<cluster id>}, asked of the cluster once per transport. */
	@Override
	public String origin() {
		return this.origin.get();
	}

	@Override
	public void subscribe(Collection<String> topics, RebalanceListener listener) {
		this.listener = listener;
		if (this.options.mode() == ConsumptionMode.BROADCAST) {
			this.broadcast = new BroadcastAssignment(List.copyOf(topics), System.nanoTime());
		}
		else {
			this.consumer.subscribe(topics, new RebalanceBridge(this.consumer, listener, this.paused, this.wakeups));
		}
	}

	@Override
	public List<Message<byte[]>> poll(Duration timeout) {
		if (this.broadcast != null) {
			assignBroadcast();
			if (this.consumer.assignment().isEmpty()) {
				this.wakeups.park(timeout.toNanos());
				return List.of();
			}
		}
		ConsumerRecords<String, byte[]> records = fetch(timeout);
		long now = System.nanoTime();
		this.endOffsets.refreshIfDue(this.consumer, now);
		if (records.isEmpty()) {
			this.silence.check(this.consumer, now);
			return List.of();
		}
		this.silence.heard(now);
		List<Message<byte[]>> messages = new ArrayList<>(records.count());
		for (ConsumerRecord<String, byte[]> record : records) {
			messages.add(KafkaRecords.message(record));
		}
		return messages;
	}

	/** Polls; a record that cannot be handed out is skipped after the poll, outside the wakeup window. */
	private ConsumerRecords<String, byte[]> fetch(Duration timeout) {
		if (!this.wakeups.enterPoll()) {
			return ConsumerRecords.empty();
		}
		KafkaException failure;
		try {
			return this.consumer.poll(timeout);
		}
		catch (WakeupException ex) {
			return ConsumerRecords.empty();
		}
		catch (KafkaException ex) {
			failure = ex;
		}
		finally {
			this.wakeups.exitPoll();
		}
		if (failure instanceof RecordDeserializationException unreadableRecord) {
			this.unreadable.skip(unreadableRecord);
		}
		else if (!this.unreadable.skipCorrupt(failure)) {
			throw failure;
		}
		return ConsumerRecords.empty();
	}

	private void assignBroadcast() {
		List<org.apache.kafka.common.TopicPartition> added = this.broadcast.refreshIfDue(this.consumer, System.nanoTime());
		if (!added.isEmpty()) {
			this.paused.forget(added);
			this.listener.onAssigned(KafkaRecords.ours(added));
			this.paused.reapply(this.consumer);
		}
	}

	@Override
	public void pause(Collection<TopicPartition> partitions) {
		this.paused.pause(this.consumer, KafkaRecords.kafka(partitions));
	}

	@Override
	public void resume(Collection<TopicPartition> partitions) {
		this.paused.resume(this.consumer, KafkaRecords.kafka(partitions));
	}

	/**
	 * Seeks within the partition's records only. Kafka takes any offset and the consumer then finds
	 * it out of range and resets to {@code auto.offset.reset} (with {@code earliest} the whole
	 * partition is delivered again, with {@code latest} records are skipped, with {@code none} the poll
	 * throws), after the engine committed the offset; so one outside the first offset and the end
	 * offset is refused with {@link IllegalArgumentException}, as RocketMQ's client does. The broker
	 * is asked for both on the owner thread, within {@link #SEEK_CHECK_TIMEOUT} in all; a seek whose
	 * offsets it does not tell in that time is refused with {@link IllegalStateException}, and
	 * nothing changes.
	 */
	@Override
	public void seek(TopicPartition partition, long offset) {
		org.apache.kafka.common.TopicPartition kafka = KafkaRecords.kafka(partition);
		List<org.apache.kafka.common.TopicPartition> one = List.of(kafka);
		long deadline = System.nanoTime() + SEEK_CHECK_TIMEOUT.toNanos();
		Long first;
		Long end;
		try {
			first = this.consumer.beginningOffsets(one, SEEK_CHECK_TIMEOUT).get(kafka);
			end = this.consumer.endOffsets(one, Duration.ofNanos(Math.max(0, deadline - System.nanoTime()))).get(kafka);
		}
		catch (TimeoutException ex) {
			throw new IllegalStateException("Cannot seek " + partition + " to " + offset + ": the broker did not tell "
					+ "the partition's first and end offsets within " + SEEK_CHECK_TIMEOUT.toMillis()
					+ " ms; nothing changed, try again", ex);
		}
		if (first == null || end == null || offset < first || offset > end) {
			throw new IllegalArgumentException("Cannot seek " + partition + " to " + offset + ": its records are at offsets "
					+ first + " up to its end offset " + end);
		}
		this.consumer.seek(kafka, offset);
	}

	@Override
	public void commitSync(Map<TopicPartition, Long> offsets) {
		Map<org.apache.kafka.common.TopicPartition, OffsetAndMetadata> kafkaOffsets = KafkaRecords.offsets(offsets);
		for (int attempt = 1;; attempt++) {
			try {
				this.consumer.commitSync(kafkaOffsets, this.silence.isSilent() ? SILENT_TIMEOUT : COMMIT_TIMEOUT);
				return;
			}
			catch (WakeupException ex) {
				// A wakeup meant for a poll slipped through the gate; the commit still has to happen.
				if (attempt >= WAKEUP_RETRIES) {
					throw new IllegalStateException("Commit of " + offsets + " was woken up " + attempt + " times", ex);
				}
			}
			catch (KafkaException ex) {
				throw commitFailure(offsets, ex);
			}
		}
	}

	@Override
	public void commitAsync(Map<TopicPartition, Long> offsets,
			BiConsumer<Map<TopicPartition, Long>, Throwable> callback) {
		try {
			// Kafka runs the callback on the thread that polls or commits next: the owner thread.
			this.consumer.commitAsync(KafkaRecords.offsets(offsets),
					(committed, error) -> callback.accept(offsets, (error != null) ? commitFailure(offsets, error) : null));
		}
		catch (KafkaException ex) {
			callback.accept(offsets, commitFailure(offsets, ex));
		}
	}

	/**
	 * Maps a failed commit to what the engine logs and counts: unreachable when it timed out;
	 * rejected when the group moved on (the partitions may belong to another consumer now, which
	 * reads from the last committed position: no loss).
	 */
	static RuntimeException commitFailure(Map<TopicPartition, Long> offsets, Exception ex) {
		Throwable cause = (ex.getCause() instanceof KafkaException) ? ex.getCause() : ex;
		if (ex instanceof TimeoutException || cause instanceof TimeoutException) {
			return new SourceUnavailableException("Commit of " + offsets + " timed out: " + ex.getMessage(), ex);
		}
		if (ex instanceof CommitFailedException || ex instanceof RebalanceInProgressException
				|| ex instanceof FencedInstanceIdException || ex instanceof UnknownMemberIdException
				|| ex instanceof IllegalGenerationException) {
			return new IllegalStateException("Commit of " + offsets + " was rejected by the group: " + ex, ex);
		}
		return (ex instanceof RuntimeException runtime) ? runtime : new IllegalStateException(ex);
	}

	/**
	 * Asks the group coordinator once for all of them; when it does not answer, knows none (the
	 * caller then reads more marks than needed, never too few).
	 */
	@Override
	public Map<TopicPartition, Long> committed(Collection<TopicPartition> partitions) {
		Map<TopicPartition, Long> positions = new HashMap<>();
		try {
			this.consumer.committed(new HashSet<>(KafkaRecords.kafka(partitions)), COMMIT_TIMEOUT)
				.forEach((partition, offset) -> {
					if (offset != null) {
						positions.put(new TopicPartition(partition.topic(), partition.partition()), offset.offset());
					}
				});
		}
		catch (KafkaException ex) {
			return Map.of();
		}
		return positions;
	}

	@Override
	public Map<TopicPartition, Long> endOffsets() {
		return this.endOffsets.get();
	}

	/** From the consumer's own lag: the partition's end as of its last fetch, less the position. */
	@Override
	public boolean isBehind(TopicPartition partition) {
		try {
			OptionalLong lag = this.consumer.currentLag(KafkaRecords.kafka(partition));
			return lag.isPresent() && lag.getAsLong() > 0;
		}
		catch (IllegalStateException ex) {
			return false; // no longer assigned
		}
	}

	@Override
	public void wakeup() {
		this.wakeups.request();
	}

	@Override
	public void close() {
		this.consumer.close(CloseOptions.timeout(this.silence.isSilent() ? SILENT_TIMEOUT : CLOSE_TIMEOUT));
	}

}

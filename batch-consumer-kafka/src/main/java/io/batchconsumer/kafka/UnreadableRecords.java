package io.batchconsumer.kafka;

import java.util.Map;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordDeserializationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.DeadLetter;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.spi.DeadLetterSink;
import io.batchconsumer.core.spi.SourceUnavailableException;

/**
 * Records a poll cannot hand out, written to the dead letter with what can be read of them and
 * skipped with a seek past them, so one bad record never stops its partition:
 * <ul>
 * <li>a record the deserializers refused ({@link RecordDeserializationException}): its key, value
 * bytes and headers are known;</li>
 * <li>a <b>corrupt</b> record, one that fails its CRC check ({@code check.crcs}): the consumer throws
 * a plain {@link KafkaException} ("... fetching the next record from {@code <partition>}. If needed,
 * please seek past the record ..."), naming the partition but not the offset. Nothing of the record
 * can be trusted, so the dead letter carries its partition and offset (the consumer's position,
 * where it stopped), an empty key and value, and the CRC error. A batch that fails its CRC fails for
 * each of its records in turn: each gets its own dead letter.</li>
 * </ul>
 * If the dead-letter write fails, {@link SourceUnavailableException} is thrown and the next poll
 * meets the record again: nothing is lost.
 *
 * <p>Threading: the owner thread only, like the consumer.
 */
final class UnreadableRecords {

	private static final Logger logger = LoggerFactory.getLogger(UnreadableRecords.class);

	/** What the consumer says when a fetched record cannot be returned and must be skipped by hand. */
	private static final String SEEK_PAST = "please seek past the record";

	private static final byte[] EMPTY = new byte[0];

	private final ContainerOptions options;

	private final Consumer<String, byte[]> consumer;

	/** {@code null} when dead letters are off: the record is logged and skipped. */
	private final DeadLetterSink sink;

	UnreadableRecords(ContainerOptions options, Consumer<String, byte[]> consumer, DeadLetterSink sink) {
		this.options = options;
		this.consumer = consumer;
		this.sink = sink;
	}

	/** Dead-letters a record the deserializers refused and seeks past it. */
	void skip(RecordDeserializationException ex) {
		deadLetter(KafkaRecords.unreadable(ex), ex, "cannot be deserialized");
		this.consumer.seek(ex.topicPartition(), ex.offset() + 1);
	}

	/**
	 * Dead-letters a corrupt record and seeks past it, when the poll failure is one.
	 * @param ex what the poll threw
	 * @return {@code false} when it is not a corrupt record of an assigned partition (rethrow it)
	 */
	boolean skipCorrupt(KafkaException ex) {
		TopicPartition partition = corruptPartition(ex);
		if (partition == null) {
			return false;
		}
		long offset = this.consumer.position(partition);
		Message<byte[]> message = Message.raw(partition.topic(), partition.partition(), offset, null, EMPTY, Map.of(),
				-1L);
		Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
		deadLetter(message, cause, "is corrupt (" + cause.getMessage() + ")");
		this.consumer.seek(partition, offset + 1);
		return true;
	}

	/** The partition named by a corrupt-record failure, or {@code null} when it is something else. */
	private TopicPartition corruptPartition(KafkaException ex) {
		String text = ex.getMessage();
		if (ex.getClass() != KafkaException.class || text == null || !text.contains(SEEK_PAST)) {
			return null;
		}
		for (TopicPartition partition : this.consumer.assignment()) {
			if (text.contains("from " + partition + ".")) {
				return partition;
			}
		}
		return null;
	}

	private void deadLetter(Message<byte[]> message, Throwable cause, String why) {
		if (this.sink == null) {
			logger.warn("{} of container '{}' {} and dead letters are off: it is skipped", message, this.options.id(), why);
			return;
		}
		logger.warn("{} of container '{}' {}: it goes to the dead letter and is skipped", message, this.options.id(), why);
		try {
			this.sink.send(DeadLetter.of(message, 1, cause));
		}
		catch (Exception failure) {
			throw new SourceUnavailableException("Dead letter of unreadable " + message + " failed; it is tried again",
					failure);
		}
	}

}

package io.batchconsumer.core.exactlyonce;

import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.batchconsumer.core.DeadLetter;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.spi.DeadLetterSink;

/**
 * Marks a dead-lettered message complete. With a {@link TransactionalDeadLetterSink} (JDBC) the
 * dead letter and its mark are one transaction. Otherwise (Kafka) the dead letter is written and
 * acknowledged first, then marked: a crash between the two writes the dead letter again on
 * redelivery, never loses it.
 *
 * <p>Threading: thread-safe; called by workers.
 */
final class CompletingDeadLetterSink implements DeadLetterSink {

	private static final Logger logger = LoggerFactory.getLogger(CompletingDeadLetterSink.class);

	private final ExactlyOnce exactlyOnce;

	private final DeadLetterSink delegate;

	CompletingDeadLetterSink(ExactlyOnce exactlyOnce, DeadLetterSink delegate) {
		this.exactlyOnce = exactlyOnce;
		this.delegate = delegate;
	}

	/** Outside the engine: a dead letter of the partition's current epoch. */
	@Override
	public void send(DeadLetter deadLetter) throws Exception {
		send(deadLetter, this.exactlyOnce.claims().currentEpoch(deadLetter.message().topicPartition()));
	}

	@Override
	public void send(DeadLetter deadLetter, long epoch) throws Exception {
		Message<byte[]> message = deadLetter.message();
		CompletionMarks marks = this.exactlyOnce.claims().marksFor(message.topicPartition(), epoch);
		if (marks.isMarked(message.offset())) {
			return;
		}
		if (!(this.delegate instanceof TransactionalDeadLetterSink)) {
			this.delegate.send(deadLetter, epoch);
		}
		try {
			this.exactlyOnce.commit(marks, message.topicPartition(), List.of(message.offset()), (connection) -> {
				if (this.delegate instanceof TransactionalDeadLetterSink transactional) {
					transactional.send(deadLetter, connection);
				}
				return null;
			});
		}
		catch (MarkConflictException ex) {
			// A conflict proves nothing of this message (the owner may have changed): only its mark,
			// read again, does. Not written and not marked: the engine tries again (or gives the
			// message up with its epoch).
			this.exactlyOnce.claims().settle(message.topicPartition(), marks, ex);
			if (!this.exactlyOnce.claims().marksFor(message.topicPartition(), epoch).isMarked(message.offset())) {
				throw ex;
			}
			logger.info("{} was finished by another transaction; its dead letter is not written again", message);
		}
	}

}

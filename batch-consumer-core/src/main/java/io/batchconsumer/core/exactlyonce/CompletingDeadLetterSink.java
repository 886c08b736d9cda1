package io.batchconsumer.core.exactlyonce;

import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.batchconsumer.core.DeadLetter;
import io.batchconsumer.core.DeadLetterSink;
import io.batchconsumer.core.Message;

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

	@Override
	public void send(DeadLetter deadLetter) throws Exception {
		Message<byte[]> message = deadLetter.message();
		CompletionMarks marks = this.exactlyOnce.marks(message.topicPartition());
		if (marks.isMarked(message.offset())) {
			return;
		}
		if (!(this.delegate instanceof TransactionalDeadLetterSink)) {
			this.delegate.send(deadLetter);
		}
		try {
			this.exactlyOnce.transaction().execute((connection) -> {
				this.exactlyOnce.table().mark(connection, this.exactlyOnce.group(), List.of(message), marks.epoch());
				if (this.delegate instanceof TransactionalDeadLetterSink transactional) {
					transactional.send(deadLetter, connection);
				}
				return null;
			});
		}
		catch (MarkConflictException ex) {
			logger.info("{} was finished by another transaction; its dead letter is not written again", message);
		}
		marks.addAll(List.of(message.offset()));
	}

}

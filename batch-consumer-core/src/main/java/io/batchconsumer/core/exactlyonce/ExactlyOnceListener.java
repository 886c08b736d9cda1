package io.batchconsumer.core.exactlyonce;

import java.util.ArrayList;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.SliceListener;

/**
 * Runs a delivery of a slice inside a {@link DeliveryTransaction}: messages marked already are
 * removed first (they count as finished), the listener runs, then the messages it finished are
 * marked in the same transaction, which commits only when the listener finished every message it
 * was given. A listener that throws, or reports some messages failed, rolls back all its writes:
 * the failed messages go back to the engine (retry, then dead letter) and the others are handed to
 * the listener again at once, in a new transaction. When another transaction marked one of them
 * first, or the partition has a new owner (its owner epoch changed: this instance is a zombie),
 * this one rolls back, the marks are read again and the rest is delivered once more, unless this
 * instance claimed the partition again since (a seek, a new assignment): then the delivery belongs
 * to an ended epoch and fails.
 *
 * <p>Threading: stateless; called concurrently by workers.
 */
final class ExactlyOnceListener implements SliceListener {

	private static final Logger logger = LoggerFactory.getLogger(ExactlyOnceListener.class);

	private static final int CONFLICT_ROUNDS = 5;

	private final ExactlyOnce exactlyOnce;

	private final SliceListener delegate;

	ExactlyOnceListener(ExactlyOnce exactlyOnce, SliceListener delegate) {
		this.exactlyOnce = exactlyOnce;
		this.delegate = delegate;
	}

	/** As the delegate: the transaction per slice holds its messages' marks whatever the slice's length. */
	@Override
	public boolean handlesEachMessage() {
		return this.delegate.handlesEachMessage();
	}

	@Override
	public BatchResult onSlice(List<Message<byte[]>> slice) throws Exception {
		BatchResult.Builder failures = BatchResult.builder();
		List<Message<byte[]>> candidates = slice;
		for (int conflicts = 0;;) {
			CompletionMarks marks = this.exactlyOnce.marks(slice.get(0).topicPartition());
			List<Message<byte[]>> fresh = unmarked(candidates, marks);
			if (fresh.isEmpty()) {
				return failures.build();
			}
			try {
				this.exactlyOnce.transaction().execute((connection) -> {
					BatchResult result = this.delegate.onSlice(fresh);
					BatchResult resolved = (result != null) ? result.resolvedAgainst(fresh) : BatchResult.success();
					List<Message<byte[]>> failed = resolved.failedOf(fresh);
					if (!failed.isEmpty()) {
						throw new Failed(resolved, failed);
					}
					this.exactlyOnce.table().mark(connection, this.exactlyOnce.group(), fresh, marks.epoch());
					return null;
				});
				marks.addAll(fresh.stream().map(Message::offset).toList());
				return failures.build();
			}
			catch (Failed ex) {
				ex.failed.forEach((message) -> failures.fail(message, ex.result.causeOf(message)));
				candidates = new ArrayList<>(fresh);
				candidates.removeIf((message) -> ex.failed.stream().anyMatch(message::sameRecord));
			}
			catch (MarkConflictException ex) {
				logger.info("{} (conflict {})", ex.getMessage(), ++conflicts);
				if (conflicts >= CONFLICT_ROUNDS) {
					throw ex;
				}
				if (this.exactlyOnce.reload(slice.get(0).topicPartition()).epoch() != marks.epoch()) {
					// This instance claimed the partition again since (a seek, a new assignment): the
					// delivery belongs to an ended epoch, whose messages the new one delivers.
					throw ex;
				}
			}
		}
	}

	private static List<Message<byte[]>> unmarked(List<Message<byte[]>> slice, CompletionMarks marks) {
		List<Message<byte[]>> fresh = new ArrayList<>(slice.size());
		for (Message<byte[]> message : slice) {
			if (!marks.isMarked(message.offset())) {
				fresh.add(message);
			}
		}
		return fresh;
	}

	/** Some messages failed: rolls the transaction back, carrying which and why. */
	private static final class Failed extends RuntimeException {

		private static final long serialVersionUID = 1L;

		private final transient BatchResult result;

		private final transient List<Message<byte[]>> failed;

		Failed(BatchResult result, List<Message<byte[]>> failed) {
			super(null, null, false, false);
			this.result = result;
			this.failed = failed;
		}

	}

}

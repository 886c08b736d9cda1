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
 * marked in the same transaction. A listener that throws rolls back its writes and nothing is
 * marked. When another transaction marked one of them first (a zombie, or the partition's new
 * owner), this one rolls back, the marks are read again and the rest is delivered once more.
 *
 * <p>A message the listener reports failed in its {@link BatchResult} is not marked, but the
 * transaction commits for the others: a listener that reports failures must not have written for
 * them (or throw, which rolls back everything).
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

	@Override
	public BatchResult onSlice(List<Message<byte[]>> slice) throws Exception {
		for (int round = 1;; round++) {
			CompletionMarks marks = this.exactlyOnce.marks(slice.get(0).topicPartition());
			List<Message<byte[]>> fresh = unmarked(slice, marks);
			if (fresh.isEmpty()) {
				return BatchResult.success();
			}
			try {
				Delivered delivered = this.exactlyOnce.transaction().execute((connection) -> {
					BatchResult result = this.delegate.onSlice(fresh);
					BatchResult resolved = (result != null) ? result.resolvedAgainst(fresh) : BatchResult.success();
					List<Message<byte[]>> failed = resolved.failedOf(fresh);
					List<Message<byte[]>> finished = new ArrayList<>(fresh);
					finished.removeIf((message) -> failed.stream().anyMatch(message::sameRecord));
					this.exactlyOnce.table().mark(connection, this.exactlyOnce.group(), finished);
					return new Delivered(resolved, failed, finished);
				});
				marks.addAll(delivered.finished.stream().map(Message::offset).toList());
				return failures(delivered);
			}
			catch (MarkConflictException ex) {
				logger.info("{} (round {})", ex.getMessage(), round);
				if (round >= CONFLICT_ROUNDS) {
					throw ex;
				}
				this.exactlyOnce.reload(slice.get(0).topicPartition());
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

	/** The failures as a result the engine resolves against the whole slice (by record, not index). */
	private static BatchResult failures(Delivered delivered) {
		if (delivered.failed.isEmpty()) {
			return BatchResult.success();
		}
		BatchResult.Builder builder = BatchResult.builder();
		for (Message<byte[]> message : delivered.failed) {
			builder.fail(message, delivered.result.causeOf(message));
		}
		return builder.build();
	}

	/** What one committed delivery did. */
	private record Delivered(BatchResult result, List<Message<byte[]>> failed, List<Message<byte[]>> finished) {
	}

}

package io.batchconsumer.core.exactlyonce;

import java.util.ArrayList;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.SliceListener;
import io.batchconsumer.core.TopicPartition;

/**
 * Runs a delivery of a slice inside a {@link DeliveryTransaction}: messages marked already are
 * removed first (they count as finished), the listener runs, then the messages it finished are
 * marked in the same transaction, which commits only when the listener finished every message it
 * was given. A listener that throws, or reports some messages failed, rolls back all its writes:
 * the failed messages go back to the engine (retry, then dead letter) and the others are handed to
 * the listener again at once, in a new transaction. When another transaction marked one of them
 * first, or the partition was claimed by another owner epoch since, this one rolls back, the marks
 * are read again (after a new claim, when fenced: {@link ExactlyOnce#settle}) and the rest is
 * delivered once more. Every round
 * of a delivery uses the claim of the partition epoch the slice was handed out in
 * ({@link ExactlyOnce#marksFor}): once that epoch ended (a seek, a revoke, a loss), the delivery
 * fails and never commits. A transaction that failed in its {@code COMMIT} is of unknown outcome
 * ({@link ExactlyOnce#commit}): the marks are read again before anything is delivered again.
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
	public void epochStarted(TopicPartition partition, long epoch) {
		this.exactlyOnce.claims().epochStarted(partition, epoch);
		this.delegate.epochStarted(partition, epoch);
	}

	/** Outside the engine: a delivery of the partition's current epoch. */
	@Override
	public BatchResult onSlice(List<Message<byte[]>> slice) throws Exception {
		return onSlice(slice, this.exactlyOnce.claims().currentEpoch(slice.get(0).topicPartition()));
	}

	@Override
	public BatchResult onSlice(List<Message<byte[]>> slice, long epoch) throws Exception {
		TopicPartition partition = slice.get(0).topicPartition();
		BatchResult.Builder failures = BatchResult.builder();
		List<Message<byte[]>> candidates = slice;
		for (int conflicts = 0;;) {
			CompletionMarks marks = this.exactlyOnce.claims().marksFor(partition, epoch);
			List<Message<byte[]>> fresh = marks.unmarked(candidates);
			failures.completedBefore(candidates.size() - fresh.size());
			if (fresh.isEmpty()) {
				return failures.build();
			}
			try {
				this.exactlyOnce.commit(marks, partition, offsetsOf(fresh), (connection) -> {
					BatchResult result = this.delegate.onSlice(fresh, epoch);
					BatchResult resolved = (result != null) ? result.resolvedAgainst(fresh) : BatchResult.success();
					List<Message<byte[]>> failed = resolved.failedOf(fresh);
					if (!failed.isEmpty()) {
						throw new Failed(resolved, failed);
					}
					return null;
				});
				return failures.build();
			}
			catch (Failed ex) {
				for (Message<byte[]> message : ex.failed) {
					if (ex.result.isRetryable(message)) {
						failures.fail(message, ex.result.causeOf(message));
					}
					else {
						failures.failWithoutRetry(message, ex.result.causeOf(message));
					}
				}
				candidates = new ArrayList<>(fresh);
				candidates.removeIf((message) -> ex.failed.stream().anyMatch(message::sameRecord));
			}
			catch (MarkConflictException ex) {
				logger.info("{} (conflict {})", ex.getMessage(), ++conflicts);
				if (conflicts >= CONFLICT_ROUNDS) {
					throw ex;
				}
				candidates = fresh; // those marked are counted already
				// Throws when the delivery belongs to an ended epoch, whose messages the new one delivers.
				this.exactlyOnce.claims().settle(partition, marks, ex);
			}
		}
	}

	static List<Long> offsetsOf(List<Message<byte[]>> messages) {
		return messages.stream().map(Message::offset).distinct().sorted().toList();
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

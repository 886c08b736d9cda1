package io.batchconsumer.core.exactlyonce;

import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;

import io.batchconsumer.core.Message;
import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.spi.RetryQueue;

/**
 * Hands messages to the retry queue and marks the originals complete in one transaction, so that
 * after a kill either the original is delivered again (no copy, no mark) or only the copy is (both
 * committed). Messages marked already are not handed over again.
 *
 * <p>Threading: thread-safe; called by workers.
 */
final class CompletingRetryQueue implements RetryQueue {

	private final ExactlyOnce exactlyOnce;

	private final TransactionalRetryQueue delegate;

	CompletingRetryQueue(ExactlyOnce exactlyOnce, TransactionalRetryQueue delegate) {
		this.exactlyOnce = exactlyOnce;
		this.delegate = delegate;
	}

	@Override
	public String topic() {
		return this.delegate.topic();
	}

	@Override
	public boolean namesPendingKeys() {
		return this.delegate.namesPendingKeys();
	}

	@Override
	public List<String> pendingKeys(TopicPartition origin) throws Exception {
		return this.delegate.pendingKeys(origin);
	}

	@Override
	public Map<TopicPartition, List<String>> pendingKeys(Collection<TopicPartition> origins) throws Exception {
		return this.delegate.pendingKeys(origins);
	}

	/** Outside the engine: messages of the partition's current epoch. */
	@Override
	public void schedule(List<Message<byte[]>> messages, Instant dueAt) throws Exception {
		schedule(messages, dueAt, this.exactlyOnce.claims().currentEpoch(messages.get(0).topicPartition()));
	}

	@Override
	public void schedule(List<Message<byte[]>> messages, Instant dueAt, long epoch) throws Exception {
		CompletionMarks marks = this.exactlyOnce.claims().marksFor(messages.get(0).topicPartition(), epoch);
		List<Message<byte[]>> fresh = marks.unmarked(messages);
		if (fresh.isEmpty()) {
			return;
		}
		try {
			this.exactlyOnce.commit(marks, fresh.get(0).topicPartition(), ExactlyOnceListener.offsetsOf(fresh),
					(connection) -> {
						this.delegate.schedule(fresh, dueAt, connection);
						return null;
					});
		}
		catch (MarkConflictException ex) {
			// Not handed over: the engine retries the messages in place.
			this.exactlyOnce.claims().settle(fresh.get(0).topicPartition(), marks, ex);
			throw ex;
		}
	}

}

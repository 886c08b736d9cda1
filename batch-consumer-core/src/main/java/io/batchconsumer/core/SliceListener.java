package io.batchconsumer.core;

import java.util.List;

/**
 * The engine's listener: processes one slice of a thread batch on a worker thread.
 *
 * <p>A slice holds messages of one partition in offset order. Returning normally with
 * {@link BatchResult#success()} finishes every message of it; throwing fails the whole slice;
 * a {@link BatchResult} naming some messages fails only those. Failed messages are retried with
 * back-off and then dead-lettered. The starter adapts {@code @BatchListener} methods to this
 * interface.
 */
@FunctionalInterface
public interface SliceListener {

	/**
	 * Processes a slice.
	 * @param slice the messages, all of one partition, in offset order; never empty
	 * @return which messages failed
	 * @throws Exception to fail the whole slice
	 */
	BatchResult onSlice(List<Message<byte[]>> slice) throws Exception;

	/**
	 * Processes a slice of a known partition epoch; the engine calls this method, which by default
	 * calls {@link #onSlice(List)}. A listener that fences its work by epoch (exactly-once) overrides
	 * it together with {@link #epochStarted}.
	 * @param slice the messages, all of one partition, in offset order; never empty
	 * @param epoch the epoch of the partition the slice was handed out in ({@link #epochStarted})
	 * @return which messages failed
	 * @throws Exception to fail the whole slice
	 */
	default BatchResult onSlice(List<Message<byte[]>> slice, long epoch) throws Exception {
		return onSlice(slice);
	}

	/**
	 * A new epoch of a partition starts on the owner thread: it was assigned, or sought. Every slice
	 * of the partition handed out from now on is delivered with this epoch, and the slices of the
	 * epochs before it have ended (their results are ignored). Epochs increase within a container.
	 * Called before any slice of the epoch is handed out; must not block.
	 * @param partition the partition
	 * @param epoch its new epoch
	 */
	default void epochStarted(TopicPartition partition, long epoch) {
	}

	/**
	 * Whether this listener handles each message of a slice on its own: one message's failure
	 * fails that message only, and nothing depends on which messages share a call. While messages
	 * are cheap every listener's slices grow past {@code consumer-batch-size}, towards 100 µs of
	 * listener time (measured), up to {@code pull-batch-size} messages; a batch is never cut into
	 * fewer slices than at {@code consumer-batch-size}. Such a listener gets a grown slice in one
	 * call. Any other listener (the default) gets it in consecutive calls of at most
	 * {@code consumer-batch-size} messages on the slice's worker, each call retried or
	 * dead-lettered before the next starts, so a list never holds more than that.
	 * @return {@code false} unless the listener handles messages one by one
	 */
	default boolean handlesEachMessage() {
		return false;
	}

	/**
	 * A listener that handles one message at a time ({@link #handlesEachMessage()}): a message whose
	 * handler throws fails alone, with that exception as its dead letter's cause.
	 * @param handler called once per message, in offset order
	 * @return the listener
	 */
	static SliceListener eachMessage(MessageHandler handler) {
		return new SliceListener() {

			@Override
			public BatchResult onSlice(List<Message<byte[]>> slice) {
				BatchResult.Builder failed = BatchResult.builder();
				for (Message<byte[]> message : slice) {
					try {
						handler.onMessage(message);
					}
					catch (Exception ex) {
						failed.fail(message, ex);
					}
				}
				return failed.build();
			}

			@Override
			public boolean handlesEachMessage() {
				return true;
			}

		};
	}

	/** Handles one message ({@link #eachMessage}). */
	@FunctionalInterface
	interface MessageHandler {

		/**
		 * Handles a message.
		 * @param message the message
		 * @throws Exception to fail it
		 */
		void onMessage(Message<byte[]> message) throws Exception;

	}

}

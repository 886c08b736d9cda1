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

}

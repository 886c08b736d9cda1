package io.batchconsumer.core.internal;

import java.util.concurrent.atomic.LongAdder;

/**
 * The container's counters.
 *
 * <p>Threading: updated by workers and the owner thread, read by any thread; each is a
 * {@link LongAdder}, so updates never contend on the hot path.
 */
final class Counters {

	final LongAdder flowControlCount = new LongAdder();

	final LongAdder flowControlSize = new LongAdder();

	final LongAdder flowControlSpan = new LongAdder();

	final LongAdder succeeded = new LongAdder();

	/** Messages finished before their delivery (exactly-once marks), not handed to the listener. */
	final LongAdder completedBefore = new LongAdder();

	final LongAdder retried = new LongAdder();

	final LongAdder deadLettered = new LongAdder();

	final LongAdder skipped = new LongAdder();

	/** Messages finished without the listener: their tag or the filter did not select them. */
	final LongAdder filtered = new LongAdder();

	/** Failed messages stored in the retry queue (and finished here) instead of waiting on a worker. */
	final LongAdder queuedForRetry = new LongAdder();

	/**
	 * Thread batches handed to workers cut for several of them (or of a single slice anyway); a batch
	 * whose every message was filtered is not counted. Apart from {@link #batchesWhole}, so each of the
	 * two only grows, whenever it is read.
	 */
	final LongAdder batchesCut = new LongAdder();

	/** {@code key} batches handed out whole, not cut by key, because the owner thread was the bound. */
	final LongAdder batchesWhole = new LongAdder();

	/** Times new batches started being held back by the rate limit ({@link RateBudget}). */
	final LongAdder heldByRateLimit = new LongAdder();

	/** Times a key started being held back by the per-key rate limit ({@link KeyRateLimit}). */
	final LongAdder heldByKeyRateLimit = new LongAdder();

	final LongAdder commitsSucceeded = new LongAdder();

	/**
	 * Asynchronous listener calls whose stage has not completed (nor timed out): a gauge, not a count
	 * since start; up when a call returns a pending stage, down on the thread that completes it.
	 */
	final LongAdder asyncCallsInFlight = new LongAdder();

	final LongAdder commitsFailed = new LongAdder();

}

package io.batchconsumer.core.internal;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.spi.MessageSource;

/**
 * Decides when to commit and what, commits, and takes the outcome. Every commit of the engine goes
 * through it: periodic and idle commits are asynchronous, the final ones (revoke, stop) and a seek's
 * are synchronous.
 *
 * <p><b>Commits follow the work.</b> Three triggers, only for partitions whose watermark moved past
 * what was committed or requested:
 * <ul>
 * <li><em>due</em>: {@code commit.interval} passed since the last due commit. Every moved partition
 * is committed in one request (the batch ack). Under load this is the only trigger, so a busy
 * partition is committed at most once per interval.</li>
 * <li><em>idle</em>: a partition has had nothing fetched, buffered or running, and the source knows
 * of no more of its messages ({@link MessageSource#isBehind}: it does not just wait for its next
 * fetch), for the <em>idle linger</em>: 1/{@value #IDLE_LINGER_DIVISOR} of the interval, at least
 * {@value #MIN_IDLE_LINGER_MILLIS} ms and at most the interval (5 ms for the default 100 ms, 10 ms for
 * 1 s, 36 s for an hour: an interval that long says "commit rarely"). Only
 * such idle partitions are committed; the interval clock is not reset. So the last records of a
 * burst are committed a few milliseconds after they finish instead of up to a whole interval later,
 * and a partition still busy is not committed early.</li>
 * <li><em>awaited</em>: the source holds off fetching until a partition is committed up to its
 * watermark ({@link MessageSource#awaitsCommit}: a share consumer polls again only once its records
 * are acknowledged). Only such partitions are committed, at once; the interval clock is not reset.</li>
 * </ul>
 * One asynchronous commit at a time: the next one carries the latest watermarks, so commits never
 * queue up at the broker (on Kafka, a commit per finished batch would pile up behind the group
 * coordinator and widen what a crash delivers again). With {@code commit.interval=0} a commit is
 * due after each finished batch.
 *
 * <p>Threading: owned by the owner thread; asynchronous outcomes arrive on it too (the source calls
 * back from its own poll or commit).
 */
final class CommitScheduler {

	/** The shortest idle linger, when the interval allows it. */
	static final long MIN_IDLE_LINGER_MILLIS = 5;

	/** The idle linger is this part of the interval, when that is longer than the minimum. */
	static final int IDLE_LINGER_DIVISOR = 100;

	private static final Logger logger = LoggerFactory.getLogger(CommitScheduler.class);

	private final long intervalNanos;

	private final long idleLingerNanos;

	private final MessageSource source;

	private final PublishedState status;

	private final Counters counters;

	private long lastDueNanos;

	/** Whether an asynchronous commit awaits its callback. */
	private boolean inFlight;

	CommitScheduler(Duration interval, MessageSource source, PublishedState status, long nowNanos) {
		this.intervalNanos = interval.toNanos();
		this.idleLingerNanos = idleLinger(this.intervalNanos);
		this.source = source;
		this.status = status;
		this.counters = status.counters();
		this.lastDueNanos = nowNanos;
	}

	/**
	 * Commits asynchronously what moved, when the interval passed or a partition idles, and no
	 * commit is in flight.
	 * @param states the current partitions
	 * @param nowNanos the time
	 */
	void commitIfDue(List<PartitionState> states, long nowNanos) {
		boolean due = isDue(nowNanos);
		Map<TopicPartition, Long> offsets = null;
		for (PartitionState state : states) {
			// Looked at even while a commit is in flight, so an idle partition's linger runs meanwhile.
			long idleSince = idleSince(state, nowNanos);
			boolean idle = idleSince >= 0 && nowNanos - idleSince >= this.idleLingerNanos;
			if (!this.inFlight && state.hasUncommittedProgress() && (due || idle || isAwaited(state))) {
				// Made only when there is something to commit: this runs on every turn of the loop.
				offsets = (offsets != null) ? offsets : new LinkedHashMap<>();
				offsets.put(state.partition, state.requestCommit());
			}
		}
		if (offsets != null) {
			if (due) {
				this.lastDueNanos = nowNanos;
			}
			this.inFlight = true;
			this.source.commitAsync(offsets, (committed, error) -> {
				this.inFlight = false;
				outcome(states, committed, error);
				wakeUpIfMoreToCommit(states);
			});
		}
	}

	/**
	 * The last commit of these partitions' epochs (revoke, stop): synchronous, and of every watermark
	 * past the last <em>confirmed</em> position, even when an asynchronous commit of it is still in
	 * flight, since that one may yet fail. A commit interrupted on the owner thread is tried once more
	 * with the flag cleared (Kafka refuses to commit on an interrupted thread), then the flag is set
	 * again. A failure is logged: the next owner of the partition reads from the last stored position.
	 * @param states the partitions
	 */
	void commitFinal(List<PartitionState> states) {
		Map<TopicPartition, Long> offsets = new LinkedHashMap<>();
		for (PartitionState state : states) {
			long position = state.requestFinalCommit();
			if (position >= 0) {
				offsets.put(state.partition, position);
			}
		}
		if (offsets.isEmpty()) {
			return;
		}
		boolean interrupted = Thread.interrupted();
		try {
			RuntimeException failure = tryCommitSync(offsets);
			if (failure != null && Thread.interrupted()) {
				interrupted = true;
				failure = tryCommitSync(offsets);
			}
			outcome(states, offsets, failure);
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * A seek's commit of its new position, synchronous; a failure is thrown to the caller of the seek.
	 * @param state the new epoch of the partition
	 * @param offset the position sought
	 */
	void commitSeek(PartitionState state, long offset) {
		Map<TopicPartition, Long> offsets = Map.of(state.partition, offset);
		this.source.commitSync(offsets);
		outcome(List.of(state), offsets, null);
	}

	/** Whether an asynchronous commit awaits its callback. */
	boolean isInFlight() {
		return this.inFlight;
	}

	boolean isDue(long nowNanos) {
		return nowNanos - this.lastDueNanos >= this.intervalNanos;
	}

	/**
	 * How long the owner may block before a commit of these partitions falls due (a due commit, or
	 * the idle commit of an idle partition); {@code Long.MAX_VALUE} when nothing is to commit or a
	 * commit is in flight (its callback wakes the owner).
	 * @param states the current partitions
	 * @param nowNanos the time
	 * @return nanoseconds, zero or more
	 */
	long nanosUntilDue(List<PartitionState> states, long nowNanos) {
		long due = Long.MAX_VALUE;
		for (PartitionState state : states) {
			long idleSince = idleSince(state, nowNanos);
			if (!this.inFlight && state.hasUncommittedProgress()) {
				due = Math.min(due, Math.max(0, this.lastDueNanos + this.intervalNanos - nowNanos));
				if (idleSince >= 0) {
					due = Math.min(due, Math.max(0, idleSince + this.idleLingerNanos - nowNanos));
				}
				if (isAwaited(state)) {
					due = 0;
				}
			}
		}
		return due;
	}

	/**
	 * Since when a partition has been idle with progress to commit, or -1: nothing fetched, buffered
	 * or running, and the source knows of no more messages ({@link MessageSource#isBehind}; asked
	 * only of a partition idle otherwise, so not on every turn for a busy one).
	 */
	private long idleSince(PartitionState state, long nowNanos) {
		long since = state.idleWithProgressSince(nowNanos);
		return (since >= 0 && this.source.isBehind(state.partition)) ? -1 : since;
	}

	/** Whether the source waits for this partition's commit to fetch more (asked only with progress to commit). */
	private boolean isAwaited(PartitionState state) {
		return this.source.awaitsCommit(state.partition, state.watermark());
	}

	/**
	 * The idle linger of an interval.
	 * @param intervalNanos the commit interval
	 * @return nanoseconds
	 */
	static long idleLinger(long intervalNanos) {
		long linger = Math.max(MIN_IDLE_LINGER_MILLIS * 1_000_000L, intervalNanos / IDLE_LINGER_DIVISOR);
		return Math.min(intervalNanos, linger);
	}

	/**
	 * Kafka calls back from inside a poll that goes on blocking until records or its timeout come
	 * (up to {@code poll-timeout}); a partition that went idle meanwhile would wait that long for its
	 * commit. So the poll is ended when there is more to commit.
	 */
	private void wakeUpIfMoreToCommit(List<PartitionState> states) {
		for (PartitionState state : states) {
			if (state.hasUncommittedProgress()) {
				this.source.wakeup();
				return;
			}
		}
	}

	private RuntimeException tryCommitSync(Map<TopicPartition, Long> offsets) {
		try {
			this.source.commitSync(offsets);
			return null;
		}
		catch (RuntimeException ex) {
			return ex;
		}
	}

	/** A failed commit is forgotten (the next carries it again); a confirmed one moves the positions. */
	private void outcome(List<PartitionState> states, Map<TopicPartition, Long> offsets, Throwable error) {
		if (error != null) {
			this.counters.commitsFailed.increment();
			logger.warn("Commit of {} failed; it is tried again: {}", offsets, error.toString());
			for (PartitionState state : states) {
				if (offsets.containsKey(state.partition)) {
					state.failCommit();
				}
			}
			return;
		}
		this.counters.commitsSucceeded.increment();
		for (PartitionState state : states) {
			Long offset = offsets.get(state.partition);
			if (offset != null && state.confirmCommit(offset)) {
				this.status.commitProgressed();
			}
		}
	}

}

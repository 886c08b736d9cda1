package io.batchconsumer.core.internal;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.batchconsumer.core.Message;

/**
 * The consumer delay ({@code delay}): a message reaches the listener no earlier than its timestamp
 * plus the delay. The dispatcher asks it how many messages at the head of a partition are due;
 * a partition whose head is not due simply forms no batch (no thread waits for it) and the poll
 * loop sleeps at most until the earliest head falls due. Flow control bounds what a waiting
 * partition buffers, as for any other backlog.
 *
 * <p>Threading: called by the owner thread only; holds no mutable state.
 */
final class DueGate {

	private final long delayMillis;

	private final Clock clock;

	/**
	 * Creates a gate.
	 * @param delay the delay, zero for none
	 * @param clock the clock the timestamps are compared with
	 */
	DueGate(Duration delay, Clock clock) {
		this.delayMillis = delay.toMillis();
		this.clock = clock;
	}

	/** Whether there is no consumer delay (messages may still carry their own deliver-at time). */
	boolean isOpen() {
		return this.delayMillis <= 0;
	}

	/**
	 * Whether this message may reach the listener now.
	 * @param message the message
	 * @return {@code true} once its timestamp plus the delay has passed
	 */
	boolean isDue(Message<?> message) {
		return millisUntilDue(message) <= 0;
	}

	/**
	 * How long until the message is due: its timestamp plus the delay, or the time its
	 * {@link Message#DELIVER_AT_HEADER} names (a delayed send held on the consumer side), whichever
	 * is later.
	 * @param message the message
	 * @return milliseconds, zero or less when it is due
	 */
	long millisUntilDue(Message<?> message) {
		long deliverAt = message.deliverAtMillis();
		if (isOpen() && deliverAt == 0) {
			return 0;
		}
		long due = Math.max(message.timestamp() + this.delayMillis, deliverAt);
		return due - this.clock.millis();
	}

	/**
	 * How long until the head of a partition waiting for its delay falls due, for the poll loop's
	 * wait; {@code Long.MAX_VALUE} when none waits.
	 * @param partitions the assigned partitions
	 * @return nanoseconds
	 */
	long nanosUntilHeadDue(List<PartitionState> partitions) {
		long millis = Long.MAX_VALUE;
		for (PartitionState partition : partitions) {
			// A head that is due already waits for a worker, whose completion wakes the loop.
			long until = partition.isDispatchable() ? millisUntilDue(partition.head()) : 0;
			if (until > 0) {
				millis = Math.min(millis, until);
			}
		}
		return (millis == Long.MAX_VALUE) ? millis : TimeUnit.MILLISECONDS.toNanos(millis);
	}

}

package io.batchconsumer.core.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.batchconsumer.core.AsyncSliceListener;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.BatchSnapshot;
import io.batchconsumer.core.ContainerObserver;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.DeadLetter;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.SliceListener;
import io.batchconsumer.core.spi.DeadLetterSink;
import io.batchconsumer.core.spi.RetryQueue;

/**
 * Runs a slice on a worker, in listener calls of at most {@link Slice#callSize} messages one after
 * the other: for each call the listener, retries of what failed with exponential back-off in place,
 * then the dead letter. A message is finished only when it succeeded or its dead letter
 * was stored; a dead-letter write that fails is tried again, so nothing is lost, and one that keeps
 * failing shows as the container's source error ({@link OwnWriteFailures}). Attempts are
 * counted per message (a retry's restored from {@link RetryQueue#restoreAttempt}); a retry whose back-off
 * exceeds {@code retry.blocking-limit} goes to the retry queue ({@link RetryHandOff}) and the
 * original is finished, so no worker waits for it. A message failed without retry (by its
 * {@link BatchResult}, or by a cause of {@code retry.not-retryable}, see {@link NotRetryable}) is
 * given up after its first failure.
 *
 * <p>An {@link AsyncSliceListener}'s call whose stage has not completed when it returns leaves the
 * worker: {@link #process} returns with the call on the slice, the owner takes the slice back and
 * hands it to a worker again once the stage completed, and {@link #process} goes on from the call's
 * outcome as if the listener had just returned it.
 *
 * <p>A {@link VirtualMachineError} is never the message's fault: it is not counted as a failed
 * attempt nor dead-lettered but thrown on to {@link SliceTask}, which gives the slice back to be
 * retried (see {@link #recover}). So is any {@code Error} outside the listener call (from the sink,
 * the observer, {@link DeadLetter#of}).
 *
 * <p>An interrupt means "stop" only when the container halts or the slice's epoch ended; a flag a
 * listener left set is cleared and the work goes on.
 *
 * <p>Threading: shared by all workers; holds no mutable state of its own. {@link #halt()} is
 * called by the owner thread (or the stopping thread) and read by workers.
 */
final class SliceRunner {

	private static final Logger logger = LoggerFactory.getLogger(SliceRunner.class);

	private final ContainerOptions options;

	private final SliceListener listener;

	private final DeadLetterSink deadLetterSink;

	private final ContainerObserver observer;

	private final Counters counters;

	private final PublishedState status;

	private final Ticker ticker;

	/** Where retries with a back-off above {@code retry.blocking-limit} go; {@code null} for none. */
	private final RetryHandOff retryQueue;

	/** Set once when the container stops for good: workers give up and leave messages unfinished. */
	private volatile boolean halted;

	/** The waits between tries; woken when the container halts or a partition's epoch ends. */
	private final Backoff backoff;

	/** Causes that are never retried ({@code retry.not-retryable}). */
	private final NotRetryable notRetryable;

	/** Calls the listener and turns what it returned, at once or through its stage, into a failure. */
	private final ListenerCalls calls;

	SliceRunner(ContainerOptions options, SliceListener listener, DeadLetterSink deadLetterSink,
			ContainerObserver observer, PublishedState status) {
		this(options, listener, deadLetterSink, observer, status, null);
	}

	SliceRunner(ContainerOptions options, SliceListener listener, DeadLetterSink deadLetterSink,
			ContainerObserver observer, PublishedState status, RetryQueue retryQueue) {
		this(options, listener, deadLetterSink, observer, status, retryQueue,
				new Backoff(status.ticker(), Parking.SYSTEM));
	}

	SliceRunner(ContainerOptions options, SliceListener listener, DeadLetterSink deadLetterSink,
			ContainerObserver observer, PublishedState status, RetryQueue retryQueue, Backoff backoff) {
		this.backoff = backoff;
		this.options = options;
		this.notRetryable = new NotRetryable(options);
		this.listener = listener;
		this.deadLetterSink = deadLetterSink;
		this.observer = observer;
		this.status = status;
		this.counters = status.counters();
		this.ticker = status.ticker();
		this.retryQueue = (retryQueue != null) ? new RetryHandOff(options.id(), retryQueue, this.counters, this.ticker,
				status.ownWrites())
				: null;
		this.calls = new ListenerCalls(options, listener, observer, this.counters, this.ticker);
	}

	SliceListener listener() {
		return this.listener;
	}

	/** The engine's time source, which the workers measure their slices with. */
	Ticker ticker() {
		return this.ticker;
	}

	/** The retry queue in use, {@code null} for none. */
	RetryQueue retryQueue() {
		return (this.retryQueue != null) ? this.retryQueue.queue() : null;
	}

	ContainerObserver observer() {
		return this.observer;
	}

	void halt() {
		this.halted = true;
		this.backoff.wake();
	}

	/** A partition's epoch ended or it started draining: its slices in a back-off stop waiting. */
	void wakeBackoffs() {
		this.backoff.wake();
	}

	/**
	 * Processes the slice to the end: its messages in consecutive calls of at most
	 * {@link Slice#callSize}, each call's retries and dead letters done before the next call starts,
	 * so a key's messages reach the listener in offset order as they would in separate slices. A slice
	 * run again (a {@code Throwable} escaped) goes on after its last finished call.
	 * @param slice the slice
	 * @return whether every message is finished; {@code false} too while an asynchronous call's stage
	 *         is pending ({@link Slice#pending} is then set, and the slice is run again once it completed)
	 */
	boolean process(Slice slice) {
		List<Message<byte[]>> messages = (this.retryQueue != null)
				? slice.messages.stream().map(this.retryQueue::restored).toList() : slice.messages;
		for (int from = slice.resumeAt; from < messages.size(); from += slice.callSize) {
			int end = (int) Math.min(messages.size(), (long) from + slice.callSize);
			if (!processCall(slice, messages.subList(from, end))) {
				return false;
			}
			slice.resumeAt = end;
		}
		return true;
	}

	/**
	 * Delivers one call's messages, retries what failed with back-off, then dead-letters it. A call
	 * whose stage completed while the slice was off its worker ({@link Slice#pending}) goes on from its
	 * outcome. False when the work was abandoned, or a stage is pending (the slice keeps it).
	 */
	private boolean processCall(Slice slice, List<Message<byte[]>> messages) {
		List<Message<byte[]>> pending = messages;
		PendingCall resumed = slice.pending;
		slice.pending = null;
		for (;;) {
			Failure failure;
			if (resumed != null) {
				pending = resumed.delivered;
				failure = this.calls.settle(slice, resumed);
				resumed = null;
			}
			else {
				if (isAbandoned(slice)) {
					return false;
				}
				failure = this.calls.deliver(slice, pending);
				if (failure == ListenerCalls.AWAITING) {
					return false;
				}
			}
			if (failure == null) {
				return true;
			}
			int max = this.options.retryMaxAttempts();
			Failure exhausted = failure.where((message) -> !mayRetry(failure, message, max));
			Failure again = failure.where((message) -> mayRetry(failure, message, max));
			if (!exhausted.messages().isEmpty() && !giveUp(slice, exhausted)) {
				return false;
			}
			if (again.messages().isEmpty()) {
				return true;
			}
			this.counters.retried.add(again.messages().size());
			int retry = again.messages().stream().mapToInt(Message::deliveryAttempt).min().orElse(1);
			Duration backoff = this.options.backoffBefore(retry);
			List<Message<byte[]>> next = again.messages().stream()
				.map((message) -> message.withDeliveryAttempt(message.deliveryAttempt() + 1)).toList();
			boolean handOff = backoff.compareTo(this.options.retryBlockingLimit()) > 0 && this.retryQueue != null;
			if (handOff && isAbandoned(slice)) {
				// The epoch ended (a drain gave up on this slice): its next owner has read the queue's
				// holds and delivers these messages again, so a copy stored now would hold no key.
				return false;
			}
			if (handOff && this.retryQueue.enqueue(next, backoff, slice.epoch)) {
				if (slice.handedOff == null) {
					slice.handedOff = new ArrayList<>();
				}
				slice.handedOff.addAll(next);
				return true;
			}
			slice.state = BatchSnapshot.SliceState.RETRYING;
			if (!pause(slice, backoff)) {
				return false;
			}
			slice.state = BatchSnapshot.SliceState.IN_FLIGHT;
			pending = next;
		}
	}

	/** Whether a failed message is tried again: attempts are left, and neither the listener nor its cause forbid it. */
	private boolean mayRetry(Failure failure, Message<byte[]> message, int maxAttempts) {
		return message.deliveryAttempt() < maxAttempts && failure.retryable().test(message)
				&& !this.notRetryable.matches(failure.causes().apply(message));
	}

	private boolean giveUp(Slice slice, Failure failure) {
		if (!this.options.deadLetterEnabled()) {
			for (Message<byte[]> message : failure.messages()) {
				logger.warn("Skipping {} of container '{}' after {} attempts (dead letters are off): {}", message,
						this.options.id(), message.deliveryAttempt(), describe(failure.causes().apply(message)));
			}
			this.counters.skipped.add(failure.messages().size());
			return true;
		}
		for (Message<byte[]> message : failure.messages()) {
			Throwable cause = failure.causes().apply(message);
			DeadLetter deadLetter = (this.retryQueue != null) ? this.retryQueue.deadLetterOf(message, cause)
					: DeadLetter.of(message, message.deliveryAttempt(), cause);
			if (!writeDeadLetter(slice, deadLetter)) {
				return false;
			}
			this.counters.deadLettered.increment();
		}
		return true;
	}

	/** Writes until it is stored, backing off between tries; false only when the container halts. */
	private boolean writeDeadLetter(Slice slice, DeadLetter deadLetter) {
		for (int attempt = 1;; attempt++) {
			if (isAbandoned(slice)) {
				return false;
			}
			long started = this.ticker.nanoTime();
			try {
				this.deadLetterSink.send(deadLetter, slice.epoch);
				this.status.ownWrites().succeeded(OwnWriteFailures.DEAD_LETTER);
				return true;
			}
			catch (Exception ex) {
				Duration backoff = this.options.backoffBefore(attempt);
				// The next try fails after the back-off and about as long as this one took.
				this.status.ownWrites().failed(OwnWriteFailures.DEAD_LETTER, ex,
						backoff.plusNanos(this.ticker.nanoTime() - started));
				// What the sink said, every try; its stack trace once, not once per backoff.
				Object[] arguments = (attempt == 1) ? new Object[] { deadLetter.message(), attempt, ex.toString(), ex }
						: new Object[] { deadLetter.message(), attempt, ex.toString() };
				logger.warn("Dead-letter write of {} failed (try {}), the message stays uncommitted: {}", arguments);
				if (!pause(slice, backoff)) {
					return false;
				}
			}
		}
	}

	/**
	 * After a {@code Throwable} escaped {@link #process}: logs it, marks the container unhealthy when
	 * it is a {@link VirtualMachineError}, and backs off before the slice is given back for a retry.
	 * @param slice the slice, not finished
	 * @param error what escaped
	 */
	void recover(Slice slice, Throwable error) {
		if (error instanceof VirtualMachineError) {
			this.status.fatal(error);
		}
		logger.error("Container '{}' met {} outside the listener's failure handling on {}; the slice is tried again",
				this.options.id(), error.getClass().getName(), slice, error);
		this.counters.retried.add(slice.messages.size() - slice.resumeAt);
		pause(slice, this.options.backoffBefore(1));
	}

	/** Whether to give up: only when the container halts or the slice's epoch ended. */
	private boolean isAbandoned(Slice slice) {
		if (this.halted || slice.partition.isCancelled()) {
			return true;
		}
		if (Thread.interrupted()) {
			logger.debug("Cleared an interrupt left on {} by a listener; the work goes on", Thread.currentThread().getName());
		}
		return false;
	}

	/**
	 * Waits the back-off; false when the work is abandoned meanwhile, or its partition drains (a
	 * revoke or a stop, which would otherwise wait for the back-off: the slice is delivered again by
	 * the partition's next owner). Ends at once when that happens; an interrupt alone does not end it.
	 */
	private boolean pause(Slice slice, Duration backoff) {
		return this.backoff.sleep(backoff.toNanos(), () -> isAbandoned(slice) || slice.partition.isDraining())
				&& !isAbandoned(slice);
	}

	private static String describe(Throwable cause) {
		return (cause != null) ? cause.getClass().getName() : "reported failed by the listener";
	}

}

package io.batchconsumer.core.internal;

import java.time.Duration;
import java.util.List;
import java.util.function.Function;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.BatchStats;
import io.batchconsumer.core.ContainerObserver;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.DeadLetter;
import io.batchconsumer.core.DeadLetterSink;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.SliceListener;

/**
 * Runs a slice on a worker: the listener, retries of what failed with exponential back-off in
 * place, then the dead letter. A message is finished only when it succeeded or its dead letter
 * was stored; a dead-letter write that fails is tried again, so nothing is lost.
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

	/** Set once when the container stops for good: workers give up and leave messages unfinished. */
	private volatile boolean halted;

	SliceRunner(ContainerOptions options, SliceListener listener, DeadLetterSink deadLetterSink,
			ContainerObserver observer, Counters counters) {
		this.options = options;
		this.listener = listener;
		this.deadLetterSink = deadLetterSink;
		this.observer = observer;
		this.counters = counters;
	}

	ContainerObserver observer() {
		return this.observer;
	}

	void halt() {
		this.halted = true;
	}

	/**
	 * Processes the slice to the end.
	 * @param slice the slice
	 * @return whether every message is finished
	 */
	boolean process(Slice slice) {
		List<Message<byte[]>> pending = slice.messages;
		for (int attempt = 1;; attempt++) {
			if (isAbandoned(slice)) {
				return false;
			}
			Failure failure = deliver(slice, pending, attempt);
			if (failure == null) {
				return true;
			}
			if (attempt >= this.options.retryMaxAttempts()) {
				return giveUp(slice, failure, attempt);
			}
			this.counters.retried.add(failure.messages.size());
			slice.state = BatchStats.SliceState.RETRYING;
			if (!pause(this.options.backoffBefore(attempt))) {
				return false;
			}
			slice.state = BatchStats.SliceState.IN_FLIGHT;
			pending = failure.messages;
		}
	}

	private Failure deliver(Slice slice, List<Message<byte[]>> pending, int attempt) {
		List<Message<byte[]>> delivered = (attempt == 1) ? pending
				: pending.stream().map((message) -> message.withDeliveryAttempt(attempt)).toList();
		slice.attempts = attempt;
		long start = System.nanoTime();
		Failure failure;
		try {
			BatchResult result = this.listener.onSlice(delivered);
			List<Message<byte[]>> failed = (result != null) ? result.failedOf(delivered) : List.of();
			failure = failed.isEmpty() ? null : new Failure(failed, result::causeOf);
		}
		catch (Throwable ex) {
			failure = new Failure(delivered, (message) -> ex);
		}
		int failedCount = (failure != null) ? failure.messages.size() : 0;
		this.observer.sliceProcessed(slice.partition.partition, delivered.size(), System.nanoTime() - start, failedCount);
		this.counters.succeeded.add(delivered.size() - failedCount);
		return failure;
	}

	private boolean giveUp(Slice slice, Failure failure, int attempts) {
		if (!this.options.deadLetterEnabled()) {
			for (Message<byte[]> message : failure.messages) {
				logger.warn("Skipping {} of container '{}' after {} attempts (dead letters are off): {}", message,
						this.options.id(), attempts, describe(failure.causes.apply(message)));
			}
			this.counters.skipped.add(failure.messages.size());
			return true;
		}
		for (Message<byte[]> message : failure.messages) {
			DeadLetter deadLetter = DeadLetter.of(message.withDeliveryAttempt(attempts), attempts,
					failure.causes.apply(message));
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
			try {
				this.deadLetterSink.send(deadLetter);
				return true;
			}
			catch (Exception ex) {
				logger.warn("Dead-letter write of {} failed (try {}), the message stays uncommitted: {}",
						deadLetter.message(), attempt, describe(ex));
				if (!pause(this.options.backoffBefore(attempt))) {
					return false;
				}
			}
		}
	}

	private boolean isAbandoned(Slice slice) {
		return this.halted || slice.partition.cancelled || Thread.currentThread().isInterrupted();
	}

	private static boolean pause(Duration backoff) {
		try {
			Thread.sleep(backoff.toMillis());
			return true;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	private static String describe(Throwable cause) {
		return (cause != null) ? cause.getClass().getName() : "reported failed by the listener";
	}

	/** The messages that failed one delivery, and why each did. */
	private record Failure(List<Message<byte[]>> messages, Function<Message<byte[]>, Throwable> causes) {
	}

}

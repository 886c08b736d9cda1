package io.batchconsumer.core;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * How a batch is sent: at once (the default), or delayed so that its messages reach listeners no
 * earlier than a given time.
 *
 * <p>On JDBC a delayed batch waits in the schedule table and enters its queues when due, so queue
 * offsets stay in the order messages became visible and no consumer waits for a future message.
 * On Kafka every record carries the header {@link Message#DELIVER_AT_HEADER} and the consumer
 * holds it (without a thread) until then; see docs/selective-and-delayed.md for the limits.
 *
 * @param deliverAt when the messages may reach a listener, {@code null} for at once
 */
public record SendOptions(@Nullable Instant deliverAt) {

	/** Send at once. */
	public static final SendOptions NOW = new SendOptions(null);

	/**
	 * Delivers no earlier than the delay from now.
	 * @param delay the delay, zero or more
	 * @return the options
	 */
	public static SendOptions delay(Duration delay) {
		Objects.requireNonNull(delay, "delay");
		if (delay.isNegative()) {
			throw new IllegalArgumentException("delay must be zero or more but was " + delay);
		}
		return new SendOptions(Clock.systemUTC().instant().plus(delay));
	}

	/**
	 * Delivers no earlier than this time.
	 * @param time the time
	 * @return the options
	 */
	public static SendOptions deliverAt(Instant time) {
		return new SendOptions(Objects.requireNonNull(time, "time"));
	}

	/**
	 * Whether the batch is delayed at all.
	 * @return {@code true} when {@link #deliverAt()} is set
	 */
	public boolean isDelayed() {
		return this.deliverAt != null;
	}

}

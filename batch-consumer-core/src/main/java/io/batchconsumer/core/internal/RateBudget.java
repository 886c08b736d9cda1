package io.batchconsumer.core.internal;

import java.util.concurrent.atomic.LongAdder;

/**
 * The listener's rate limit ({@code rate-limit}, messages per second over all its threads) as a
 * token bucket on the owner thread: tokens accrue at the rate, up to one second's worth, and each
 * message handed to the listener in a new batch spends one. While fewer tokens are there than a
 * slice's worth (a {@code consumer-batch-size}, or the whole bucket when that is smaller), no new
 * batch is formed: the messages wait in the buffer, holding no thread, counted in the backlog, and
 * flow control stops fetching as the buffer fills. Slices the key gate releases, retries and slices
 * taken back were counted when their batch was formed and are not held again.
 *
 * <p>The bucket starts empty, so a listener never gets more than the rate plus one slice in its first
 * second. Each time work starts being held back, {@code heldByRateLimit} counts one.
 *
 * <p>Threading: owned by the owner thread; the counter is a {@link LongAdder} read by any thread.
 */
final class RateBudget {

	private static final double NANOS_PER_SECOND = 1_000_000_000d;

	private final LongAdder held;

	/** Messages per second, 0 for no limit; replaced by {@link #retune}. */
	private int perSecond;

	private double tokens;

	/** When the tokens were last brought up to date; {@code Long.MIN_VALUE} before the first look. */
	private long refilledNanos = Long.MIN_VALUE;

	/** Whether new batches are being held back now (a hold is counted once, when it starts). */
	private boolean holding;

	RateBudget(int perSecond, LongAdder held) {
		this.perSecond = perSecond;
		this.held = held;
	}

	/**
	 * Takes a new rate; the tokens saved are kept up to the new bucket's size.
	 * @param perSecond messages per second, 0 for no limit
	 */
	void retune(int perSecond) {
		this.perSecond = perSecond;
		this.tokens = Math.min(this.tokens, perSecond);
		if (perSecond == 0) {
			this.holding = false;
		}
	}

	boolean isLimited() {
		return this.perSecond > 0;
	}

	/**
	 * Whether new batches wait for tokens now; counts a hold as it starts.
	 * @param sliceSize the messages of a full slice
	 * @param nowNanos the time
	 * @return {@code true} while fewer tokens are there than a slice's worth
	 */
	boolean shouldHold(int sliceSize, long nowNanos) {
		if (!isLimited()) {
			return false;
		}
		refill(nowNanos);
		boolean hold = this.tokens < worth(sliceSize);
		if (hold && !this.holding) {
			this.held.increment();
		}
		this.holding = hold;
		return hold;
	}

	/**
	 * The messages new batches may still take in this hand-out.
	 * @return whole tokens, {@link Integer#MAX_VALUE} without a limit
	 */
	int remaining() {
		return isLimited() ? (int) Math.max(0, Math.floor(this.tokens)) : Integer.MAX_VALUE;
	}

	/**
	 * Spends tokens for messages handed to the listener in a new batch.
	 * @param messages the messages
	 */
	void spend(int messages) {
		if (isLimited()) {
			this.tokens -= messages;
		}
	}

	/**
	 * How long until a held-back hand-out may go, for the owner's sleep.
	 * @param sliceSize the messages of a full slice
	 * @param nowNanos the time
	 * @return nanoseconds, {@code Long.MAX_VALUE} when nothing is held back
	 */
	long nanosUntilTokens(int sliceSize, long nowNanos) {
		if (!isLimited() || !this.holding) {
			return Long.MAX_VALUE;
		}
		refill(nowNanos);
		double missing = worth(sliceSize) - this.tokens;
		return (missing <= 0) ? 0 : Math.max(1, (long) Math.ceil(missing * NANOS_PER_SECOND / this.perSecond));
	}

	private double worth(int sliceSize) {
		return Math.min(sliceSize, this.perSecond);
	}

	private void refill(long nowNanos) {
		if (this.refilledNanos != Long.MIN_VALUE && nowNanos > this.refilledNanos) {
			double accrued = (nowNanos - this.refilledNanos) * this.perSecond / NANOS_PER_SECOND;
			this.tokens = Math.min(this.perSecond, this.tokens + accrued);
		}
		if (this.refilledNanos == Long.MIN_VALUE || nowNanos > this.refilledNanos) {
			this.refilledNanos = nowNanos;
		}
	}

}

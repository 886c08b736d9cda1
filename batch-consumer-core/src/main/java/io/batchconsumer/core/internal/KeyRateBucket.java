package io.batchconsumer.core.internal;

/**
 * One message key's token bucket for {@link KeyRateLimit}: tokens accrue at the rate up to one
 * second's worth; a new bucket starts full.
 *
 * <p>Threading: owned by the owner thread.
 */
final class KeyRateBucket {

	private static final double NANOS_PER_SECOND = 1_000_000_000d;

	/** Tokens now; may be below 1 while the key is held back, never above the rate. */
	double tokens;

	/** When the tokens were last brought up to date. */
	long refilledNanos;

	/** Slices of the key owed and not released. */
	int owed;

	/** Whether its messages are being held back now (a hold is counted once, as it starts). */
	boolean holding;

	/** A full bucket, as a key seen for the first time gets. */
	KeyRateBucket(int perSecond, long nowNanos) {
		this.tokens = perSecond;
		this.refilledNanos = nowNanos;
	}

	/** Brings the tokens up to date at the given rate. */
	void refill(long nowNanos, int perSecond) {
		if (nowNanos > this.refilledNanos) {
			double accrued = (nowNanos - this.refilledNanos) * perSecond / NANOS_PER_SECOND;
			this.tokens = Math.min(perSecond, this.tokens + accrued);
			this.refilledNanos = nowNanos;
		}
	}

	/** Whether it holds a second's worth at that time: then it is the same as no bucket. */
	boolean isFullAt(long nowNanos, int perSecond) {
		return this.tokens + Math.max(0, nowNanos - this.refilledNanos) * perSecond / NANOS_PER_SECOND >= perSecond;
	}

}

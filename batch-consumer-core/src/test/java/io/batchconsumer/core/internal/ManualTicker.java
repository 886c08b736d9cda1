package io.batchconsumer.core.internal;

import java.time.Duration;

/**
 * A {@link Ticker} a test moves by hand.
 *
 * <p>Threading: the test's thread only.
 */
final class ManualTicker implements Ticker {

	private long nanos = 1_000_000_000L;

	@Override
	public long nanoTime() {
		return this.nanos;
	}

	@Override
	public long currentTimeMillis() {
		return this.nanos / 1_000_000;
	}

	long advance(Duration by) {
		this.nanos += by.toNanos();
		return this.nanos;
	}

}

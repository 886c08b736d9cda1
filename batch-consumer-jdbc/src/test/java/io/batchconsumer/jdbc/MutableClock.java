package io.batchconsumer.jdbc;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock a test moves or sets by hand, so that lease expiry, retention and delays need no sleeping.
 *
 * <p>Threading: thread-safe.
 */
final class MutableClock extends Clock {

	private final AtomicLong millis;

	/** A clock at 2030-01-01T00:00:00Z. */
	MutableClock() {
		this(Instant.parse("2030-01-01T00:00:00Z").toEpochMilli());
	}

	/**
	 * A clock at this time.
	 * @param startMillis epoch milliseconds
	 */
	MutableClock(long startMillis) {
		this.millis = new AtomicLong(startMillis);
	}

	void set(long epochMillis) {
		this.millis.set(epochMillis);
	}

	void advance(Duration duration) {
		this.millis.addAndGet(duration.toMillis());
	}

	@Override
	public long millis() {
		return this.millis.get();
	}

	@Override
	public Instant instant() {
		return Instant.ofEpochMilli(millis());
	}

	@Override
	public ZoneId getZone() {
		return ZoneOffset.UTC;
	}

	@Override
	public Clock withZone(ZoneId zone) {
		throw new UnsupportedOperationException();
	}

}

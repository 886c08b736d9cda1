package io.batchconsumer.core.jdbc;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock a test moves by hand, so that lease expiry and retention need no sleeping.
 *
 * <p>Threading: thread-safe.
 */
final class MutableClock extends Clock {

	private final AtomicLong millis = new AtomicLong(Instant.parse("2030-01-01T00:00:00Z").toEpochMilli());

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

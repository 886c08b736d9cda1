package io.batchconsumer.core.internal;

import java.time.Duration;

/**
 * The failures of the container's own writes to its transport — dead letters, the retry queue —
 * as the statistics show them: once two tries in a row failed, the last failure is the container's
 * source error (the health turns {@code DOWN}) until a write succeeds. A single failed try that the
 * next one makes good (a lock that stayed taken for the busy timeout once) is not shown, so the
 * health does not flap; a write that cannot succeed (a full disk, a table that is gone) is shown
 * within the second try's back-off. A failure is shown for twice the wait before its next try (plus
 * {@link #GRACE}) and then dropped unless another try failed meanwhile: a write that is not tried
 * again (its partition was revoked, its retry succeeded in place) leaves no error behind for good.
 * Those writes are tried again until they succeed (a dead letter) or are made in place (a retry), so
 * nothing waits on the error; it only makes it visible.
 *
 * <p>Threading: called by workers concurrently (a lock per write, which is a database or network
 * call anyway) and read by any thread; the count is guarded by {@code this}, the failure shown is an
 * immutable value in a volatile field so readers see it without the lock.
 */
final class OwnWriteFailures {

	/** Failed tries in a row from which the failure is shown. */
	private static final int SHOWN_FROM = 2;

	/** Added to how long a failure is shown, for what else happens before the next try (a listener call). */
	static final Duration GRACE = Duration.ofSeconds(5);

	private final Ticker ticker;

	/** Failed tries since the last successful write; guarded by {@code this}. */
	private int inARow;

	/** The failure shown, {@code null} while none is. */
	private volatile Shown shown;

	OwnWriteFailures(Ticker ticker) {
		this.ticker = ticker;
	}

	/**
	 * Records a failed try.
	 * @param what what was written, e.g. "Dead-letter write"
	 * @param failure why it failed
	 * @param nextTryWithin how long until the write is tried again and fails again: the back-off
	 *        before the next try and the time this try took
	 */
	synchronized void failed(String what, Exception failure, Duration nextTryWithin) {
		this.inARow++;
		if (this.inARow >= SHOWN_FROM) {
			String error = what + " failed " + this.inARow + " times in a row: " + failure.getClass().getSimpleName()
					+ ": " + failure.getMessage();
			this.shown = new Shown(error, this.ticker.nanoTime() + nextTryWithin.multipliedBy(2).plus(GRACE).toNanos());
		}
	}

	/** Records a successful write: no failure is shown any more. */
	synchronized void succeeded() {
		this.inARow = 0;
		this.shown = null;
	}

	/**
	 * The failure to show.
	 * @return the last failure once two tries in a row failed and while the writes are tried again,
	 *         {@code null} while they succeed
	 */
	String error() {
		Shown current = this.shown;
		return (current != null && this.ticker.nanoTime() - current.untilNanos() < 0) ? current.error() : null;
	}

	private record Shown(String error, long untilNanos) {
	}

}

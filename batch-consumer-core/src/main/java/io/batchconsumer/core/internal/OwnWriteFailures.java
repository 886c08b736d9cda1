package io.batchconsumer.core.internal;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The failures of the container's own writes to its transport — dead letters, the retry queue —
 * as the statistics show them: once two tries in a row of one kind of write failed, the last failure
 * is the container's source error (the health turns {@code DOWN}) until a write of that kind succeeds
 * (the dead letters and the retry queue may be different places: a retry stored does not make good a
 * dead letter that cannot be stored, and the health does not flap between them). A single failed
 * try that the next one makes good (a lock that stayed taken for the busy timeout once) is not
 * shown, so the health does not flap; a write that cannot succeed (a full disk, a table that is gone) is shown
 * within the second try's back-off. A failure is shown for twice the wait before its next try (plus
 * {@link #GRACE}) and then dropped unless another try failed meanwhile: a write that is not tried
 * again (its partition was revoked, its retry succeeded in place) leaves no error behind for good.
 * Those writes are tried again until they succeed (a dead letter) or are made in place (a retry), so
 * nothing waits on the error; it only makes it visible.
 *
 * <p>Threading: called by workers concurrently (a lock per write, which is a database or network
 * call anyway) and read by any thread; the counts are guarded by {@code this}, the failures shown are
 * immutable values in a concurrent map so readers see them without the lock.
 */
final class OwnWriteFailures {

	/** The kind of write of a dead letter. */
	static final String DEAD_LETTER = "Dead-letter write";

	/** The kind of write of the retry queue. */
	static final String RETRY_QUEUE = "Retry-queue write";

	/** Failed tries in a row from which the failure is shown. */
	private static final int SHOWN_FROM = 2;

	/** Added to how long a failure is shown, for what else happens before the next try (a listener call). */
	static final Duration GRACE = Duration.ofSeconds(5);

	private final Ticker ticker;

	/** Per kind of write, failed tries since its last successful write; guarded by {@code this}. */
	private final Map<String, Integer> inARow = new HashMap<>();

	/** Per kind of write, the failure shown; absent while none is. */
	private final Map<String, Shown> shown = new ConcurrentHashMap<>();

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
		int failures = this.inARow.merge(what, 1, Integer::sum);
		if (failures >= SHOWN_FROM) {
			String error = what + " failed " + failures + " times in a row: " + failure.getClass().getSimpleName()
					+ ": " + failure.getMessage();
			this.shown.put(what, new Shown(error, this.ticker.nanoTime() + nextTryWithin.multipliedBy(2).plus(GRACE).toNanos()));
		}
	}

	/**
	 * Records a successful write: no failure of its kind is shown any more.
	 * @param what what was written, as given to {@link #failed}
	 */
	synchronized void succeeded(String what) {
		this.inARow.remove(what);
		this.shown.remove(what);
	}

	/**
	 * The failure to show.
	 * @return the last failure once two tries in a row failed and while the writes are tried again,
	 *         {@code null} while they succeed
	 */
	String error() {
		long now = this.ticker.nanoTime();
		for (Shown current : this.shown.values()) {
			if (now - current.untilNanos() < 0) {
				return current.error();
			}
		}
		return null;
	}

	private record Shown(String error, long untilNanos) {
	}

}

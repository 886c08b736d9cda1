package io.batchconsumer.core.internal;

/**
 * The failures of the container's own writes to its transport — dead letters, the retry queue —
 * as the statistics show them: once two tries in a row failed, the last failure is the container's
 * source error (the health turns {@code DOWN}) until a write succeeds. A single failed try that the
 * next one makes good (a lock that stayed taken for the busy timeout once) is not shown, so the
 * health does not flap; a write that cannot succeed (a full disk, a table that is gone) is shown
 * within the second try's back-off. Those writes are tried again until they succeed (a dead letter)
 * or are made in place (a retry), so nothing waits on the error; it only makes it visible.
 *
 * <p>Threading: called by workers concurrently (a lock per write, which is a database or network
 * call anyway) and read by any thread; the count is guarded by {@code this}, the error is volatile
 * so readers see it without the lock.
 */
final class OwnWriteFailures {

	/** Failed tries in a row from which the failure is shown. */
	private static final int SHOWN_FROM = 2;

	/** Failed tries since the last successful write; guarded by {@code this}. */
	private int inARow;

	/** The failure shown, {@code null} while none is. */
	private volatile String error;

	/**
	 * Records a failed try.
	 * @param what what was written, e.g. "Dead-letter write"
	 * @param failure why it failed
	 */
	synchronized void failed(String what, Exception failure) {
		this.inARow++;
		if (this.inARow >= SHOWN_FROM) {
			this.error = what + " failed " + this.inARow + " times in a row: " + failure.getClass().getSimpleName()
					+ ": " + failure.getMessage();
		}
	}

	/** Records a successful write: no failure is shown any more. */
	synchronized void succeeded() {
		this.inARow = 0;
		this.error = null;
	}

	/**
	 * The failure to show.
	 * @return the last failure once two tries in a row failed, {@code null} while the writes succeed
	 */
	String error() {
		return this.error;
	}

}

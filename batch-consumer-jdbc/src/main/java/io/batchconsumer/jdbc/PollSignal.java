package io.batchconsumer.jdbc;

import java.util.concurrent.TimeUnit;

/**
 * What a {@link JdbcMessageSource} poll waits on, when it found nothing or when it holds back a read
 * that is not due yet: a {@link #wake() wakeup} ends the poll, a {@link #stored() store} by a producer
 * of this process makes it look again at once, and otherwise it looks again every recheck interval
 * (or when the held read is due) until its deadline.
 *
 * <p>Threading: thread-safe; the owner thread waits in {@link #await}, any thread may call
 * {@link #wake()} and {@link #stored()}. Guarded by its own monitor.
 */
final class PollSignal {

	private final long recheckNanos;

	private boolean woken;

	private boolean stored;

	/**
	 * Creates a signal.
	 * @param recheckMillis how long a wait lasts at most when nothing is signalled
	 */
	PollSignal(long recheckMillis) {
		this.recheckNanos = TimeUnit.MILLISECONDS.toNanos(recheckMillis);
	}

	/**
	 * Waits a little.
	 * @param deadline the poll's deadline, in {@link System#nanoTime()}
	 * @return {@code false} when woken or past the deadline, {@code true} to look again
	 */
	synchronized boolean await(long deadline) {
		long left = deadline - System.nanoTime();
		if (this.woken || left <= 0) {
			return false;
		}
		if (!this.stored) {
			try {
				TimeUnit.NANOSECONDS.timedWait(this, Math.min(left, this.recheckNanos));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return false;
			}
		}
		return !this.woken;
	}

	/**
	 * Holds a read back until it is due.
	 * @param readAt when the read is due, in {@link System#nanoTime()}
	 * @param deadline the poll's deadline
	 * @return {@code true} to read now (it is due, or a producer of this process stored), {@code false}
	 * when woken or the deadline came first
	 */
	synchronized boolean holdUntil(long readAt, long deadline) {
		while (!this.woken && !this.stored) {
			long now = System.nanoTime();
			if (readAt - now <= 0) {
				return true;
			}
			if (deadline - now <= 0) {
				return false;
			}
			try {
				TimeUnit.NANOSECONDS.timedWait(this, Math.min(readAt, deadline) - now);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return false;
			}
		}
		return !this.woken;
	}

	/**
	 * A read starts: it sees every store signalled so far (a producer signals after its commit), so
	 * only a later one makes the next read due at once. The only place a store is forgotten.
	 */
	synchronized void reading() {
		this.stored = false;
	}

	/** Forgets a wakeup once the poll it ended returned. */
	synchronized void clearWakeup() {
		this.woken = false;
	}

	/** Ends the current or next wait of the poll. */
	synchronized void wake() {
		this.woken = true;
		notifyAll();
	}

	/** Makes a waiting poll look again at once. */
	synchronized void stored() {
		this.stored = true;
		notifyAll();
	}

}

package io.batchconsumer.core.jdbc;

import java.util.concurrent.TimeUnit;

/**
 * What a {@link JdbcMessageSource} poll that found nothing waits on: a {@link #wake() wakeup} ends
 * the poll, a {@link #stored() store} by a producer of this process makes it look again at once,
 * and otherwise it looks again every recheck interval until its deadline.
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
		this.stored = false;
		return !this.woken;
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

package io.batchconsumer.core.internal;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The owner thread's mailbox: completions from workers and commands from callers, unbounded so a
 * worker never blocks or drops one.
 *
 * <p>An interrupt of the owner thread while it waits here is remembered and cleared, not thrown:
 * the owner decides what it means (a stop, after the drain and the final commit). A flag left set
 * would make every later wait throw at once, so a drain would spin until its deadline without
 * taking a single completion, and a final Kafka commit would fail.
 *
 * <p>Threading: {@link #add} from any thread; everything else on the owner thread.
 */
final class Mailbox {

	private final LinkedBlockingQueue<MailItem> queue = new LinkedBlockingQueue<>();

	/** Owner thread only. */
	private boolean interrupted;

	void add(MailItem item) {
		this.queue.add(item);
	}

	boolean isEmpty() {
		return this.queue.isEmpty();
	}

	/** The next item, or {@code null} when there is none. */
	MailItem poll() {
		return this.queue.poll();
	}

	/**
	 * Waits up to {@code nanos} for the next item.
	 * @param nanos the longest wait
	 * @return the item, or {@code null} after the wait or an interrupt (see {@link #wasInterrupted()})
	 */
	MailItem poll(long nanos) {
		try {
			return this.queue.poll(Math.max(0, nanos), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			// The flag is cleared by the throw; keep it here instead.
			this.interrupted = true;
			return null;
		}
	}

	/**
	 * Whether the owner thread was interrupted while it waited here (or before), since it started.
	 * @return {@code true} once an interrupt came
	 */
	boolean wasInterrupted() {
		if (Thread.interrupted()) {
			this.interrupted = true;
		}
		return this.interrupted;
	}

}

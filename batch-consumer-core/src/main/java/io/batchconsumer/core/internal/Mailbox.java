package io.batchconsumer.core.internal;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The owner thread's mailbox: completions from workers and commands from callers, unbounded so a
 * worker never blocks or drops one.
 *
 * <p>The owner may wait for <em>several</em> completions ({@link #poll(long, int)}): while the
 * workers have slices queued ahead, waking it for each completion costs a wake-up of the owner
 * thread per slice (a system call on the worker's side, a thread switch on the owner's) for work
 * it can do as well for several at once. A command always wakes it, and every completion is in
 * the queue from the moment it is added, whoever wakes when.
 *
 * <p>An interrupt of the owner thread while it waits here is remembered and cleared, not thrown:
 * the owner decides what it means (a stop, after the drain and the final commit). A flag left set
 * would make every later wait return at once, so a drain would spin until its deadline, and a
 * final Kafka commit would fail.
 *
 * <p>Threading: {@link #add} from any thread; everything else on the owner thread.
 */
final class Mailbox {

	private final ConcurrentLinkedQueue<MailItem> queue = new ConcurrentLinkedQueue<>();

	/** Completions in the queue. */
	private final AtomicInteger completions = new AtomicInteger();

	/** Commands in the queue. */
	private final AtomicInteger commands = new AtomicInteger();

	/** The owner thread while it waits here, else {@code null}. */
	private volatile Thread waiting;

	/** How many completions in the queue wake the waiting owner. */
	private volatile int wakeAt = 1;

	/** Owner thread only. */
	private boolean interrupted;

	private final Ticker ticker;

	private final Parking parking;

	Mailbox() {
		this(Ticker.SYSTEM, Parking.SYSTEM);
	}

	/**
	 * @param ticker the time of the waits' deadlines
	 * @param parking how the owner waits and is woken
	 */
	Mailbox(Ticker ticker, Parking parking) {
		this.ticker = ticker;
		this.parking = parking;
	}

	/** Queues an item and wakes the waiting owner for a command, or for the completion it waits for. */
	void add(MailItem item) {
		this.queue.add(item);
		boolean wakes;
		if (item instanceof Completion) {
			wakes = this.completions.incrementAndGet() >= this.wakeAt;
		}
		else {
			this.commands.incrementAndGet();
			wakes = true;
		}
		Thread owner = this.waiting; // read after the count: see the wait's check, before it parks
		if (owner != null && wakes) {
			this.parking.unpark(owner);
		}
	}

	boolean isEmpty() {
		return this.queue.isEmpty();
	}

	/** The next item, or {@code null} when there is none. */
	MailItem poll() {
		MailItem item = this.queue.poll();
		if (item != null) {
			((item instanceof Completion) ? this.completions : this.commands).decrementAndGet();
		}
		return item;
	}

	/**
	 * Waits up to {@code nanos} until {@code completions} completions or a command are in, then
	 * takes the next item.
	 * @param nanos the longest wait
	 * @param completions the completions to wait for, at least 1
	 * @return the next item (there may be fewer completions after the wait), or {@code null} after
	 *         the wait or an interrupt (see {@link #wasInterrupted()})
	 */
	MailItem poll(long nanos, int completions) {
		this.wakeAt = Math.max(1, completions);
		this.waiting = Thread.currentThread();
		try {
			long deadline = this.ticker.nanoTime() + Math.max(0, nanos);
			while (this.commands.get() == 0 && this.completions.get() < this.wakeAt) {
				long left = deadline - this.ticker.nanoTime();
				if (left <= 0) {
					break;
				}
				this.parking.park(this, left);
				if (Thread.interrupted()) {
					this.interrupted = true; // cleared here, kept for the owner
					break;
				}
			}
		}
		finally {
			this.waiting = null;
			this.wakeAt = 1;
		}
		return poll();
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

package io.batchconsumer.rocketmq;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * Lets the owner thread wait for messages in short steps and be woken from any thread.
 *
 * <p>RocketMQ's lite pull consumer has no {@code wakeup()}: its {@code poll} blocks on an internal
 * queue, and only an interrupt cuts it short, which would also break a commit in flight. So the
 * source polls without blocking and parks in steps of at most {@link #STEP_NANOS} between polls;
 * {@link #wakeup()} unparks it at once, so a finished slice is handled within microseconds.
 *
 * <p>Threading: {@link #park} on the owner thread only; {@link #wakeup()} from any thread. The
 * request flag is atomic, the owner is published through a volatile field.
 */
final class OwnerWait {

	/** The longest step between two looks into the client's queue: the added latency of new messages. */
	static final long STEP_NANOS = 1_000_000;

	private final AtomicBoolean requested = new AtomicBoolean();

	/** The thread that parks; set by the owner thread, read by waking threads. */
	private volatile Thread owner;

	/** Wakes a parked owner, or makes its next park return at once. */
	void wakeup() {
		this.requested.set(true);
		Thread thread = this.owner;
		if (thread != null) {
			LockSupport.unpark(thread);
		}
	}

	/**
	 * Takes a pending wakeup.
	 * @return whether one was pending
	 */
	boolean takeWakeup() {
		return this.requested.getAndSet(false);
	}

	/**
	 * Parks the owner thread for one step, or less, unless a wakeup is pending.
	 * @param nanos the most to wait
	 */
	void park(long nanos) {
		this.owner = Thread.currentThread();
		if (!this.requested.get() && nanos > 0) {
			LockSupport.parkNanos(this, Math.min(nanos, STEP_NANOS));
		}
	}

}

package io.batchconsumer.core.internal;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A one-way hand-over of the simulation's baton to one waiting thread: the taker spins a moment
 * before it parks, because a hand-over happens at every step and a thread's wake-up from a park
 * costs more than a step's work.
 *
 * <p>Threading: one thread gives, one takes; the flag is volatile.
 */
final class SimulatedHandoff {

	private static final int SPINS = 200;

	private volatile boolean given;

	private volatile Thread waiter;

	void give() {
		this.given = true;
		Thread thread = this.waiter;
		if (thread != null) {
			LockSupport.unpark(thread);
		}
	}

	void take() {
		take(Long.MAX_VALUE);
	}

	/**
	 * Waits for the baton.
	 * @param seconds the longest wait
	 * @return whether it came
	 */
	boolean take(long seconds) {
		for (int i = 0; i < SPINS; i++) {
			if (this.given) {
				this.given = false;
				return true;
			}
			Thread.onSpinWait();
		}
		long deadline = (seconds == Long.MAX_VALUE) ? Long.MAX_VALUE : System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
		this.waiter = Thread.currentThread();
		try {
			while (!this.given) {
				long left = deadline - System.nanoTime();
				if (left <= 0) {
					return false;
				}
				LockSupport.parkNanos(this, Math.min(left, TimeUnit.SECONDS.toNanos(1)));
			}
			this.given = false;
			return true;
		}
		finally {
			this.waiter = null;
		}
	}

}

package io.batchconsumer.core.internal;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;

/**
 * The workers' waits between tries (a retry's back-off, a dead-letter write tried again, a slice
 * given back after an error): a timed wait that ends early, and at once, when the work is abandoned
 * — its container halts, its partition's epoch ends (revoke, loss, seek) or the partition starts
 * draining — so no worker outlives a stop or holds up a revoke by sleeping. Whoever abandons the
 * work calls {@link #wake()}; nothing is interrupted.
 *
 * <p>Threading: {@link #sleep} by workers, {@link #wake()} by any thread; the set of sleeping
 * threads is concurrent.
 */
final class Backoff {

	private final Ticker ticker;

	private final Parking parking;

	private final Set<Thread> sleeping = ConcurrentHashMap.newKeySet();

	Backoff(Ticker ticker, Parking parking) {
		this.ticker = ticker;
		this.parking = parking;
	}

	/**
	 * Waits {@code nanos} unless the work is abandoned first.
	 * @param nanos how long
	 * @param abandoned whether to give up; checked before each wait and after each wake-up
	 * @return {@code true} when the whole back-off passed, {@code false} when the work was abandoned
	 */
	boolean sleep(long nanos, BooleanSupplier abandoned) {
		Thread thread = Thread.currentThread();
		this.sleeping.add(thread);
		try {
			long deadline = this.ticker.nanoTime() + nanos;
			while (!abandoned.getAsBoolean()) {
				long left = deadline - this.ticker.nanoTime();
				if (left <= 0) {
					return true;
				}
				this.parking.park(this, left); // a wake() before the park ends it at once
			}
			return false;
		}
		finally {
			this.sleeping.remove(thread);
		}
	}

	/** Makes every sleeping worker check whether its work was abandoned. */
	void wake() {
		for (Thread thread : this.sleeping) {
			this.parking.unpark(thread);
		}
	}

}

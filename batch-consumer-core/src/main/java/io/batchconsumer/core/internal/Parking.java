package io.batchconsumer.core.internal;

import java.util.concurrent.locks.LockSupport;

/**
 * How the engine's threads wait for time to pass or for another thread to wake them: the owner
 * thread for its mailbox, the workers in a retry's back-off. Waits never use an interrupt (an
 * interrupt inside JDBC makes H2 close its database); a waiter is woken with {@link #unpark}.
 * Injected so that a test can make every wait of the engine virtual (a simulation that decides
 * which thread runs next).
 *
 * <p>Threading: {@link #SYSTEM} may be used from any thread.
 */
interface Parking {

	/** {@link LockSupport}'s parking. */
	Parking SYSTEM = new Parking() {

		@Override
		public void park(Object blocker, long nanos) {
			LockSupport.parkNanos(blocker, nanos);
		}

		@Override
		public void unpark(Thread thread) {
			LockSupport.unpark(thread);
		}

	};

	/**
	 * Waits up to {@code nanos}, or until {@link #unpark} (also one that came before), or for no
	 * reason (callers check their condition again).
	 * @param blocker what the thread waits for, for diagnostics
	 * @param nanos the longest wait
	 */
	void park(Object blocker, long nanos);

	/**
	 * Ends the thread's wait, or its next one when it does not wait now.
	 * @param thread the thread
	 */
	void unpark(Thread thread);

}

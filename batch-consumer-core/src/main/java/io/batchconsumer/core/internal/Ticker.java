package io.batchconsumer.core.internal;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * The engine's time source: a monotonic clock for intervals and deadlines and a wall clock for what
 * the statistics show. Injected so the owner's decisions (when to commit, when to look at a paused
 * partition again) can be driven step by step in a test.
 *
 * <p>Threading: {@link #SYSTEM} may be used from any thread; a test ticker belongs to its test.
 */
interface Ticker {

	/** The system clocks. */
	Ticker SYSTEM = new Ticker() {

		@Override
		public long nanoTime() {
			return System.nanoTime();
		}

		@Override
		public long currentTimeMillis() {
			return System.currentTimeMillis();
		}

		private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();

		private final boolean measured = this.threads.isCurrentThreadCpuTimeSupported()
				&& this.threads.isThreadCpuTimeEnabled();

		@Override
		public long threadCpuNanos() {
			return this.measured ? this.threads.getCurrentThreadCpuTime() : 0;
		}

	};

	/**
	 * The monotonic time.
	 * @return nanoseconds, {@link System#nanoTime()} scale
	 */
	long nanoTime();

	/**
	 * The wall-clock time.
	 * @return milliseconds since the epoch
	 */
	long currentTimeMillis();

	/**
	 * The CPU time the calling thread used, for the owner's cost per message (see
	 * {@link SliceSizing#ownerSpent}).
	 * @return nanoseconds, or always 0 where not measured (a test ticker, a JVM without thread CPU time)
	 */
	default long threadCpuNanos() {
		return 0;
	}

}

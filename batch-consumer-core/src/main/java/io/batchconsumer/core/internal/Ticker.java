package io.batchconsumer.core.internal;

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

}

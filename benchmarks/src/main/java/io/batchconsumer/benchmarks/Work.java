package io.batchconsumer.benchmarks;

import java.util.concurrent.locks.LockSupport;

/**
 * The simulated work of one record, decided by the record's index alone so that every contender
 * gets exactly the same work for the same record.
 *
 * <p>Threading: implementations are stateless and thread-safe.
 */
@FunctionalInterface
public interface Work {

	/** No work at all: the limit is the consumer itself. */
	Work NONE = (index) -> 0;

	/**
	 * How long record {@code index} takes.
	 * @param index the record's index (0 to records − 1), carried in its payload
	 * @return nanoseconds, 0 for none
	 */
	long nanosFor(long index);

	/**
	 * Does the work of one record: waits without burning a core, like blocking I/O.
	 * @param index the record's index
	 */
	default void perform(long index) {
		long nanos = nanosFor(index);
		if (nanos <= 0) {
			return;
		}
		long deadline = System.nanoTime() + nanos;
		for (long left = nanos; left > 0; left = deadline - System.nanoTime()) {
			LockSupport.parkNanos(left);
		}
	}

	/**
	 * A uniform duration in {@code [0, maxNanos)}, fixed per record.
	 * @param maxNanos the upper bound
	 * @return the work
	 */
	static Work uniform(long maxNanos) {
		return (index) -> (long) (unit(index) * maxNanos);
	}

	/**
	 * A skewed duration: a share of the records is slow, the rest fast, fixed per record.
	 * @param slowShare the share of slow records, e.g. 0.01
	 * @param slowNanos a slow record's duration
	 * @param fastNanos a fast record's duration
	 * @return the work
	 */
	static Work skewed(double slowShare, long slowNanos, long fastNanos) {
		return (index) -> (unit(index) < slowShare) ? slowNanos : fastNanos;
	}

	/** A well-mixed value in [0, 1) from the index (SplitMix64's finaliser). */
	private static double unit(long index) {
		long z = index + 0x9E3779B97F4A7C15L;
		z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
		z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
		z = z ^ (z >>> 31);
		return (z >>> 11) * 0x1.0p-53;
	}

}

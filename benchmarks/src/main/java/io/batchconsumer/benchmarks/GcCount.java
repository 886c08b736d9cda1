package io.batchconsumer.benchmarks;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;

/**
 * The garbage collections of the process so far, over all collectors: a run's count and time show
 * how much of its cost was the collector's (at zero work a Kafka consumer allocates several hundred
 * bytes per record, most of it inside the client's parsing).
 *
 * <p>Threading: immutable; any thread.
 *
 * @param collections the collections so far
 * @param millis the collectors' accumulated time so far, as the JVM reports it
 */
public record GcCount(long collections, long millis) {

	/**
	 * The collections so far.
	 * @return the count and time, summed over the collectors that report them
	 */
	public static GcCount now() {
		long count = 0;
		long millis = 0;
		for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
			count += Math.max(0, collector.getCollectionCount());
			millis += Math.max(0, collector.getCollectionTime());
		}
		return new GcCount(count, millis);
	}

	/**
	 * The note part for a run that started at {@code start}.
	 * @param start the count at the run's start
	 * @return e.g. {@code "GC 34 collections, 212 ms"}
	 */
	public String since(GcCount start) {
		return String.format("GC %d collections, %d ms", this.collections - start.collections,
				this.millis - start.millis);
	}

}

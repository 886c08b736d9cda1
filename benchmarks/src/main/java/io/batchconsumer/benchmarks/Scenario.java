package io.batchconsumer.benchmarks;

/**
 * One Kafka workload: what is in the topic, how much work each record takes, and the sizes every
 * contender is configured with (threads, slice size, records per poll).
 *
 * @param number the scenario number of docs/benchmarks.md's full run (1–5)
 * @param name a short description
 * @param topic the topic, filled once and read by every contender with a fresh group
 * @param partitions partitions of the topic
 * @param records records in the topic; record {@code i} goes to partition {@code i % partitions}
 * @param payloadBytes bytes of each value (the first 8 carry the index)
 * @param keys distinct keys, record {@code i} has key {@code k<i % keys>}
 * @param threads worker threads (Parallel Consumer's max concurrency, the barrier's pool, ours)
 * @param sliceSize records per slice for ours and the barrier
 * @param pollRecords {@code max.poll.records} of every consumer, ours' pull batch size
 * @param work the work of each record
 */
public record Scenario(int number, String name, String topic, int partitions, int records, int payloadBytes,
		int keys, int threads, int sliceSize, int pollRecords, Work work) {

	/**
	 * The shortest possible run: all work spread perfectly over the threads.
	 * @return seconds, 0 when there is no work
	 */
	public double idealSeconds() {
		double nanos = 0;
		for (long i = 0; i < this.records; i++) {
			nanos += this.work.nanosFor(i);
		}
		return nanos / this.threads / 1e9;
	}

	/**
	 * The record rate of the ideal run.
	 * @return records/s, or infinity without work
	 */
	public double idealThroughput() {
		double seconds = idealSeconds();
		return (seconds > 0) ? this.records / seconds : Double.POSITIVE_INFINITY;
	}

	/**
	 * Whether records take time (then sequential contenders process them one by one).
	 * @return {@code true} for the I/O-bound and skew scenarios
	 */
	public boolean hasWork() {
		return this.work != Work.NONE;
	}

}

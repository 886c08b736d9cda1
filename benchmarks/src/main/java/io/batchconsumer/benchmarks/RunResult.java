package io.batchconsumer.benchmarks;

/**
 * One contender's run of one scenario (or the median of several).
 *
 * @param scenario the scenario number
 * @param contender the contender's name
 * @param round the round (0 for a median)
 * @param records records in the run
 * @param processed distinct records processed (scenario 5: while the listener was blocked)
 * @param duplicates records processed more than once
 * @param throughput records/s from the first processed record to the last
 * @param startMillis from the start of the run to the first processed record (group join etc.)
 * @param p50Millis median latency (see {@link Tally}), NaN where not measured
 * @param p99Millis 99th percentile latency, NaN where not measured
 * @param peakHeapMb peak heap used above the post-GC baseline, in MiB
 * @param retainedHeapMb heap used above the baseline after a full collection while the listener was
 *        blocked (scenario 5), NaN where not measured
 * @param backlogMax the highest buffered count seen, -1 where not measured
 * @param note anything the table should say about the run
 */
public record RunResult(int scenario, String contender, int round, long records, long processed, long duplicates,
		double throughput, double startMillis, double p50Millis, double p99Millis, double peakHeapMb, double retainedHeapMb,
		long backlogMax,
		String note) {

	/**
	 * Whether every record was processed.
	 * @return {@code true} when the run was complete
	 */
	public boolean complete() {
		return this.processed >= this.records;
	}

}

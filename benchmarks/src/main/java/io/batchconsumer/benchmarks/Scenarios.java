package io.batchconsumer.benchmarks;

import java.util.concurrent.TimeUnit;

/**
 * The Kafka scenarios of docs/benchmarks.md's full run, at full or quick size. Record counts are multiplied by
 * the runner's {@code --scale}.
 */
public final class Scenarios {

	private static final int PAYLOAD = 100;

	private static final int KEYS = 1000;

	private final boolean quick;

	private final double scale;

	/**
	 * Sizes the scenarios.
	 * @param quick the small sizes the quick test uses
	 * @param scale a factor on every record count
	 */
	public Scenarios(boolean quick, double scale) {
		this.quick = quick;
		this.scale = scale;
	}

	/**
	 * 1: no work, 1M records of 100 B over 6 partitions, 4 threads, slices of 500, polls of 2000.
	 * @return the scenario
	 */
	public Scenario zeroWork() {
		int records = records(1_000_000, 20_000);
		return new Scenario(1, "zero work, 6 partitions", "s1-zero-work-" + records, 6, records, PAYLOAD, KEYS, 4,
				500, 2000, Work.NONE);
	}

	/**
	 * 2: I/O-bound in one partition, 10k records sleeping uniformly 0–5 ms, 16 threads, slices of 1.
	 * @return the scenario
	 */
	public Scenario ioBound() {
		int records = records(10_000, 400);
		return new Scenario(2, "I/O-bound (0-5 ms), 1 partition, 16 threads", "s2-io-" + records, 1, records, PAYLOAD,
				KEYS, 16, 1, 500, Work.uniform(TimeUnit.MILLISECONDS.toNanos(5)));
	}

	/**
	 * 3: skew, 20k records of which 1% take 100 ms and the rest 1 ms, 20 threads, 4 partitions.
	 * @return the scenario
	 */
	public Scenario skew() {
		int records = records(20_000, 800);
		return new Scenario(3, "skew (1% x 100 ms, else 1 ms), 4 partitions, 20 threads", "s3-skew-" + records, 4,
				records, PAYLOAD, KEYS, 20, 1, 500,
				Work.skewed(0.01, TimeUnit.MILLISECONDS.toNanos(100), TimeUnit.MILLISECONDS.toNanos(1)));
	}

	/**
	 * 5: scenario 1's topic in front of a listener that blocks until released.
	 * @param blocker the blocking work
	 * @return the scenario
	 */
	public Scenario memory(Blocker blocker) {
		Scenario base = zeroWork();
		return new Scenario(5, "blocked listener in front of " + base.records() + " records", base.topic(),
				base.partitions(), base.records(), base.payloadBytes(), base.keys(), base.threads(), base.sliceSize(),
				base.pollRecords(), blocker);
	}

	/**
	 * 4: records sent with {@code sendBatch} and consumed over JDBC.
	 * @return the record count
	 */
	public int jdbcRecords() {
		return records(200_000, 4_000);
	}

	/**
	 * 10: JDBC end to end, producers and consumers at the same time.
	 * @return the record count of each run
	 */
	public int jdbcEndToEndRecords() {
		return records(200_000, 2_000);
	}

	private int records(int full, int small) {
		return (int) Math.max(1, Math.round((this.quick ? small : full) * this.scale));
	}

}

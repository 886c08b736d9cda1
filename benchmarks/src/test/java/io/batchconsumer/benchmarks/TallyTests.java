package io.batchconsumer.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link Tally} with several threads recording at once, each into its own lane, with the bits laid
 * out per partition or not (200,000 records over 6 or 7 partitions do not divide evenly): every
 * distinct record counted once, every repeat as a duplicate, one latency per distinct record, the
 * last record's time the latest any thread saw, and {@link Tally#await} true only once all are in.
 */
class TallyTests {

	private static final int RECORDS = 200_000;

	private static final int THREADS = 4;

	@ParameterizedTest
	@ValueSource(ints = { 1, 6, 7 })
	void threadsRecordingTheSameRecordsCountEachOnceAndTheRestAsDuplicates(int stride) throws Exception {
		Tally tally = new Tally(RECORDS, stride);
		assertThat(tally.await(Duration.ofMillis(20))).as("nothing processed yet").isFalse();
		CountDownLatch start = new CountDownLatch(1);
		AtomicLong latest = new AtomicLong();
		List<Thread> threads = new ArrayList<>();
		for (int t = 0; t < THREADS; t++) {
			int first = t;
			Thread thread = new Thread(() -> {
				try {
					start.await();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return;
				}
				// Each thread takes every THREADS-th record from its own start, then half of the next
				// thread's again: RECORDS distinct records, RECORDS / 2 repeats in all.
				for (int i = first; i < RECORDS; i += THREADS) {
					tally.processed(i);
				}
				int next = (first + 1) % THREADS;
				for (int i = next; i < RECORDS; i += 2 * THREADS) {
					tally.processed(i);
				}
				latest.accumulateAndGet(System.nanoTime(), Math::max);
			}, "tally-" + t);
			thread.start();
			threads.add(thread);
		}
		start.countDown();
		assertThat(tally.await(Duration.ofSeconds(30))).isTrue();
		for (Thread thread : threads) {
			thread.join();
		}
		assertThat(tally.distinct()).isEqualTo(RECORDS);
		assertThat(tally.duplicates()).isEqualTo(RECORDS / 2);
		assertThat(tally.firstNanos()).isPositive();
		assertThat(tally.lastNanos()).isGreaterThanOrEqualTo(tally.firstNanos()).isLessThanOrEqualTo(latest.get());
		Histogram latency = tally.latencyMicros();
		assertThat(latency.getTotalCount()).as("one latency per distinct record").isEqualTo(RECORDS);
	}

	@Test
	void awaitReturnsFalseWhileARecordIsMissing() throws Exception {
		Tally tally = new Tally(3);
		tally.processed(0);
		tally.processed(2);
		tally.processed(2);
		assertThat(tally.await(Duration.ofMillis(50))).isFalse();
		assertThat(tally.distinct()).isEqualTo(2);
		assertThat(tally.duplicates()).isEqualTo(1);
		tally.processed(1);
		assertThat(tally.await(Duration.ofMillis(50))).isTrue();
		assertThat(tally.latencyMicros().getTotalCount()).isEqualTo(3);
	}

}

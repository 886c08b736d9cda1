package io.batchconsumer.benchmarks.kafka;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import io.batchconsumer.benchmarks.Scenario;
import io.batchconsumer.benchmarks.Tally;

/**
 * What the I/O scenarios can reach on this machine: every record's work on the scenario's threads,
 * each thread taking the next record index from a counter — no broker, no batches, no commits,
 * perfect balance. The nominal ideal assumes a record's wait lasts exactly its nominal time; a
 * {@code LockSupport.parkNanos} of 1 ms lasts 1.15–1.25 ms on this 2-core machine with 20 threads
 * waiting, so no consumer reaches it. This contender measures that ceiling side by side with the
 * others, in the same rounds.
 *
 * <p>Threading: {@code perfect-pool-<n>} threads, each running records until the counter passes
 * the last; {@link Running#close()} stops and joins them.
 */
final class PerfectPoolContender implements Contender {

	@Override
	public String name() {
		return "perfect pool (no broker)";
	}

	@Override
	public boolean consumesTheTopic() {
		return false;
	}

	@Override
	public Running start(Scenario scenario, String group, Tally tally) {
		AtomicLong next = new AtomicLong();
		List<Thread> threads = new ArrayList<>();
		for (int i = 0; i < scenario.threads(); i++) {
			Thread thread = new Thread(() -> {
				for (long index; (index = next.getAndIncrement()) < scenario.records()
						&& !Thread.currentThread().isInterrupted();) {
					scenario.work().perform(index);
					tally.processed(index);
				}
			}, "perfect-pool-" + (i + 1));
			threads.add(thread);
		}
		threads.forEach(Thread::start);
		return () -> {
			next.set(Long.MAX_VALUE / 2); // no thread takes another record
			for (Thread thread : threads) {
				try {
					thread.join();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return;
				}
			}
		};
	}

}

package io.batchconsumer.benchmarks.kafka;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

import io.batchconsumer.benchmarks.Records;
import io.batchconsumer.benchmarks.Scenario;
import io.batchconsumer.benchmarks.Tally;
import io.batchconsumer.benchmarks.ThreadCpu;

/**
 * The least a consumer that works on other threads than its poll thread can do: poll, hand each
 * partition's records to a pool of the scenario's threads in views of the slice size (no copy, no
 * conversion, no order, no ledger, no flow control beyond two slices per thread in flight), poll
 * again, and commit the fetched positions asynchronously about once a second. It loses messages on
 * a crash (it commits what was fetched, not what was processed); it is a floor for the records-handled
 * clock, not a design: the least any consumer that works off its poll thread pays on this machine.
 *
 * <p>Threading: one thread, {@code handoff-<group>-poll}, owns the consumer; the pool
 * ({@code handoff-<group>-worker-<n>}) only runs slices.
 */
final class HandOffContender implements Contender {

	private final String bootstrap;

	HandOffContender(String bootstrap) {
		this.bootstrap = bootstrap;
	}

	@Override
	public String name() {
		return "hand-off floor (unsafe)";
	}

	@Override
	public boolean runsUnnamed() {
		return false;
	}

	@Override
	public Running start(Scenario scenario, String group, Tally tally) {
		ExecutorService pool = BarrierContender.pool("handoff-" + group, scenario.threads());
		KafkaConsumer<String, byte[]> consumer = KafkaClients.consumer(this.bootstrap, group, scenario);
		AtomicBoolean running = new AtomicBoolean(true);
		Thread thread = new Thread(() -> loop(consumer, pool, scenario, tally, running), "handoff-" + group + "-poll");
		thread.start();
		return new Running() {

			@Override
			public String note() {
				// By the whole name's ends: the workers' names start as the poll thread's does.
				return ThreadCpu.perRecord("poll thread", ThreadCpu.nanos("handoff-" + group, "-poll"), scenario.records())
						+ ", " + ThreadCpu.perRecord("workers", ThreadCpu.nanos("handoff-" + group + "-worker", ""),
								scenario.records());
			}

			@Override
			public void close() {
				running.set(false);
				PlainConsumerContender.join(thread);
				pool.shutdownNow();
			}

		};
	}

	private static void loop(KafkaConsumer<String, byte[]> consumer, ExecutorService pool, Scenario scenario,
			Tally tally, AtomicBoolean running) {
		Semaphore inFlight = new Semaphore(2 * scenario.threads());
		try (consumer) {
			consumer.subscribe(List.of(scenario.topic()));
			long nextCommit = System.nanoTime() + 1_000_000_000L;
			while (running.get()) {
				ConsumerRecords<String, byte[]> records = consumer.poll(Duration.ofMillis(100));
				for (TopicPartition partition : records.partitions()) {
					List<ConsumerRecord<String, byte[]>> all = records.records(partition);
					for (int from = 0; from < all.size(); from += scenario.sliceSize()) {
						List<ConsumerRecord<String, byte[]>> slice = all.subList(from,
								Math.min(all.size(), from + scenario.sliceSize()));
						inFlight.acquire();
						if (!handOff(pool, inFlight, () -> {
							try {
								for (ConsumerRecord<String, byte[]> record : slice) {
									long index = Records.index(record.value());
									scenario.work().perform(index);
									tally.processed(index);
								}
							}
							finally {
								inFlight.release();
							}
						})) {
							return;
						}
					}
				}
				if (System.nanoTime() - nextCommit > 0) {
					consumer.commitAsync();
					nextCommit = System.nanoTime() + 1_000_000_000L;
				}
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** Runs the slice on the pool; {@code false}, its permit given back, once the pool is shut down. */
	private static boolean handOff(ExecutorService pool, Semaphore inFlight, Runnable slice) {
		try {
			pool.execute(slice);
			return true;
		}
		catch (RejectedExecutionException ex) {
			inFlight.release();
			return false;
		}
	}

}

package io.batchconsumer.benchmarks.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;

import io.batchconsumer.benchmarks.Records;
import io.batchconsumer.benchmarks.Scenario;
import io.batchconsumer.benchmarks.Tally;

/**
 * The design PMQ improved on: poll a batch, cut it into slices of the scenario's slice size, hand
 * them to a pool of the scenario's threads, wait for all of them, commit, poll again. Nothing is
 * lost and the commit is trivially right, but every batch waits for its slowest slice.
 *
 * <p>Threading: one thread, {@code barrier-<group>}, owns the consumer; the pool only runs slices.
 */
final class BarrierContender implements Contender {

	private final String bootstrap;

	BarrierContender(String bootstrap) {
		this.bootstrap = bootstrap;
	}

	@Override
	public String name() {
		return "barrier (wait for the batch)";
	}

	@Override
	public Running start(Scenario scenario, String group, Tally tally) {
		ExecutorService pool = pool("barrier-" + group, scenario.threads());
		KafkaConsumer<String, byte[]> consumer = KafkaClients.consumer(this.bootstrap, group, scenario);
		AtomicBoolean running = new AtomicBoolean(true);
		Thread thread = new Thread(() -> loop(consumer, pool, scenario, tally, running), "barrier-" + group);
		thread.start();
		return () -> {
			running.set(false);
			PlainConsumerContender.join(thread);
			pool.shutdownNow();
		};
	}

	/** A pool of {@code threads} workers named {@code <name>-worker-<n>}. */
	static ExecutorService pool(String name, int threads) {
		AtomicInteger ids = new AtomicInteger();
		return Executors.newFixedThreadPool(threads, (task) -> new Thread(task, name + "-worker-" + ids.incrementAndGet()));
	}

	private static void loop(KafkaConsumer<String, byte[]> consumer, ExecutorService pool, Scenario scenario,
			Tally tally, AtomicBoolean running) {
		try (consumer) {
			consumer.subscribe(List.of(scenario.topic()));
			while (running.get()) {
				ConsumerRecords<String, byte[]> records = consumer.poll(Duration.ofMillis(100));
				if (records.isEmpty()) {
					continue;
				}
				pool.invokeAll(slices(records, scenario, tally));
				consumer.commitAsync();
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static List<Callable<Void>> slices(ConsumerRecords<String, byte[]> records, Scenario scenario,
			Tally tally) {
		List<Callable<Void>> slices = new ArrayList<>();
		List<ConsumerRecord<String, byte[]>> slice = new ArrayList<>(scenario.sliceSize());
		for (ConsumerRecord<String, byte[]> record : records) {
			slice.add(record);
			if (slice.size() == scenario.sliceSize()) {
				slices.add(task(slice, scenario, tally));
				slice = new ArrayList<>(scenario.sliceSize());
			}
		}
		if (!slice.isEmpty()) {
			slices.add(task(slice, scenario, tally));
		}
		return slices;
	}

	private static Callable<Void> task(List<ConsumerRecord<String, byte[]>> slice, Scenario scenario, Tally tally) {
		return () -> {
			for (ConsumerRecord<String, byte[]> record : slice) {
				long index = Records.index(record.value());
				scenario.work().perform(index);
				tally.processed(index);
			}
			return null;
		};
	}

}

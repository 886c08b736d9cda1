package io.batchconsumer.benchmarks.kafka;

import java.time.Duration;
import java.util.List;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;

import io.batchconsumer.benchmarks.Records;
import io.batchconsumer.benchmarks.RunQueue;
import io.batchconsumer.benchmarks.Scenario;
import io.batchconsumer.benchmarks.Tally;
import io.batchconsumer.benchmarks.ThreadCpu;

/**
 * A plain {@code KafkaConsumer} poll loop: the limit at zero work. Records are processed one by
 * one in the poll thread; positions are committed asynchronously about once a second.
 *
 * <p>Threading: one thread, {@code plain-<group>}, owns the consumer.
 */
final class PlainConsumerContender implements Contender {

	private final String bootstrap;

	PlainConsumerContender(String bootstrap) {
		this.bootstrap = bootstrap;
	}

	@Override
	public String name() {
		return "plain KafkaConsumer";
	}

	@Override
	public Running start(Scenario scenario, String group, Tally tally) {
		Loop loop = new Loop(KafkaClients.consumer(this.bootstrap, group, scenario), scenario, tally);
		Thread thread = new Thread(loop, "plain-" + group);
		thread.start();
		return new Running() {

			@Override
			public String note() {
				return ThreadCpu.perRecord("poll thread", ThreadCpu.nanos(thread.getName(), ""), scenario.records())
						+ RunQueue.note("poll thread", loop.thread, scenario.records());
			}

			@Override
			public void close() {
				loop.running = false;
				join(thread);
			}

		};
	}

	static void join(Thread thread) {
		try {
			thread.join(30_000);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static final class Loop implements Runnable {

		private final KafkaConsumer<String, byte[]> consumer;

		private final Scenario scenario;

		private final Tally tally;

		/** Set by the runner thread to stop the loop. */
		volatile boolean running = true;

		/** The loop thread's id in the kernel ({@link RunQueue}), once it runs. */
		volatile String thread;

		Loop(KafkaConsumer<String, byte[]> consumer, Scenario scenario, Tally tally) {
			this.consumer = consumer;
			this.scenario = scenario;
			this.tally = tally;
		}

		@Override
		public void run() {
			this.thread = RunQueue.currentThread();
			try (this.consumer) {
				this.consumer.subscribe(List.of(this.scenario.topic()));
				long nextCommit = System.nanoTime() + 1_000_000_000L;
				while (this.running) {
					for (ConsumerRecord<String, byte[]> record : this.consumer.poll(Duration.ofMillis(100))) {
						long index = Records.index(record.value());
						this.scenario.work().perform(index);
						this.tally.processed(index);
					}
					if (System.nanoTime() - nextCommit > 0) {
						this.consumer.commitAsync();
						nextCommit = System.nanoTime() + 1_000_000_000L;
					}
				}
			}
		}

	}

}

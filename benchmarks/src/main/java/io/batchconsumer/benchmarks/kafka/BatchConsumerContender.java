package io.batchconsumer.benchmarks.kafka;

import java.time.Duration;
import java.util.Collection;

import io.batchconsumer.benchmarks.BenchOptions;
import io.batchconsumer.benchmarks.Records;
import io.batchconsumer.benchmarks.RunQueue;
import io.batchconsumer.benchmarks.Scenario;
import io.batchconsumer.benchmarks.Tally;
import io.batchconsumer.benchmarks.ThreadCpu;
import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerObserver;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.ContainerSnapshot;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.SliceListener;
import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.kafka.KafkaTransport;

/**
 * Ours: a {@link BatchContainer} on the {@link KafkaTransport} with the scenario's threads, slice
 * size and pull batch size, the given ordering, commits at most once a second, every other option
 * (flow control included) at its default.
 *
 * <p>The {@link #defaults} variant takes every option at its default but the threads (the
 * scenario's, like every contender): with the transport's defaults (Kafka's pull of 2000), or with
 * the generic builder's (the generic pull of 32), which is what a plain-Java user got before the
 * transport supplied its own. The {@link #defaultsEachMessage} variant takes the transport's defaults
 * with a listener that handles each message on its own ({@link SliceListener#eachMessage}), whose
 * slices grow while the work is cheap.
 *
 * <p>For experiments, in every variant a system property {@code bench.option.<key>} overrides an
 * integer option ({@link BenchOptions}).
 */
final class BatchConsumerContender implements Contender {

	private final KafkaTransport transport;

	private final Ordering ordering;

	/** {@code null} for the scenario's options, else "transport" or "generic" defaults. */
	private final String defaults;

	private final boolean eachMessage;

	BatchConsumerContender(KafkaTransport transport, Ordering ordering) {
		this(transport, ordering, null, false);
	}

	private BatchConsumerContender(KafkaTransport transport, Ordering ordering, String defaults, boolean eachMessage) {
		this.transport = transport;
		this.ordering = ordering;
		this.defaults = defaults;
		this.eachMessage = eachMessage;
	}

	/**
	 * Ours with every option at its default but the threads.
	 * @param transport the transport
	 * @param ordering the ordering
	 * @param transportDefaults whether the transport's defaults apply, else the generic builder's
	 * @return the contender
	 */
	static BatchConsumerContender defaults(KafkaTransport transport, Ordering ordering, boolean transportDefaults) {
		return new BatchConsumerContender(transport, ordering, transportDefaults ? "transport" : "generic", false);
	}

	/**
	 * Ours with the transport's defaults but the threads, and a listener that handles each message.
	 * @param transport the transport
	 * @param ordering the ordering
	 * @return the contender
	 */
	static BatchConsumerContender defaultsEachMessage(KafkaTransport transport, Ordering ordering) {
		return new BatchConsumerContender(transport, ordering, "transport", true);
	}

	@Override
	public String name() {
		String name = "batch-consumer " + this.ordering.name().toLowerCase();
		return (this.defaults == null) ? name
				: name + ", " + this.defaults + " defaults" + (this.eachMessage ? ", each message" : "");
	}

	/**
	 * The options this contender runs with in a scenario.
	 * @param scenario the scenario
	 * @param group the group, also the container id
	 * @return the options
	 */
	ContainerOptions options(Scenario scenario, String group) {
		if (this.defaults == null) {
			return options(scenario, group, group, this.ordering, Duration.ofSeconds(1));
		}
		ContainerOptions.Builder builder = "transport".equals(this.defaults) ? this.transport.optionsBuilder(group)
				: ContainerOptions.builder(group);
		return BenchOptions.overridden(builder.topics(scenario.topic()).group(group).ordering(this.ordering)
			.threadSize(scenario.threads()));
	}

	/**
	 * The options ours runs with in a scenario.
	 * @param scenario the scenario
	 * @param id the container id
	 * @param group the group
	 * @param ordering the ordering
	 * @param commitInterval the commit interval
	 * @return the options
	 */
	static ContainerOptions options(Scenario scenario, String id, String group, Ordering ordering,
			Duration commitInterval) {
		return BenchOptions.overridden(ContainerOptions.builder(id)
			.topics(scenario.topic())
			.group(group)
			.ordering(ordering)
			.threadSize(scenario.threads())
			.consumerBatchSize(scenario.sliceSize())
			.pullBatchSize(scenario.pollRecords())
			.commitInterval(commitInterval));
	}

	@Override
	public Running start(Scenario scenario, String group, Tally tally) {
		ContainerOptions options = options(scenario, group);
		SliceListener.MessageHandler handler = (message) -> {
			long index = Records.index(message.payload());
			scenario.work().perform(index);
			tally.processed(index);
		};
		SliceListener listener = this.eachMessage ? SliceListener.eachMessage(handler) : (slice) -> {
			for (Message<byte[]> message : slice) {
				handler.onMessage(message);
			}
			return BatchResult.success();
		};
		OwnerThread owner = new OwnerThread();
		BatchContainer container = BatchContainer.builder(options, this.transport.createSource(options), listener,
				this.transport.deadLetterSink(options)).observer(owner).build();
		container.start();
		return new Running() {

			@Override
			public long buffered() {
				return container.stats().backlog();
			}

			@Override
			public String note() {
				ContainerSnapshot stats = container.stats();
				String prefix = "batch-consumer-" + group + "-";
				return ThreadCpu.perRecord("owner", ThreadCpu.nanos(prefix, "-poll"), scenario.records()) + ", "
						+ ThreadCpu.perRecord("workers", ThreadCpu.nanos(prefix + "worker", ""), scenario.records())
						+ RunQueue.note("owner", owner.thread, scenario.records())
						+ "; " + String.format("flow control stopped fetching %,d times (count %,d, size %,d, span %,d); %,d commits; "
								+ "%,d batches, %,d whole",
						stats.flowControlCount() + stats.flowControlSize() + stats.flowControlSpan(),
						stats.flowControlCount(), stats.flowControlSize(), stats.flowControlSpan(),
						stats.commitsSucceeded(), stats.batchesOpened(), stats.batchesWhole());
			}

			@Override
			public void close() {
				container.stop();
			}

		};
	}

	/** Learns the owner thread's kernel id ({@link RunQueue}) as the container takes its first partitions. */
	private static final class OwnerThread implements ContainerObserver {

		volatile String thread;

		@Override
		public void sliceProcessed(TopicPartition partition, int messages, long nanos, int failed) {
		}

		@Override
		public void partitionsAssigned(Collection<TopicPartition> partitions) {
			if (this.thread == null) {
				this.thread = RunQueue.currentThread();
			}
		}

	}

}

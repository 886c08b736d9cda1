package io.batchconsumer.benchmarks.kafka;

import java.time.Duration;

import io.batchconsumer.benchmarks.Records;
import io.batchconsumer.benchmarks.Scenario;
import io.batchconsumer.benchmarks.Tally;
import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.ContainerStats;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.kafka.KafkaTransport;

/**
 * Ours: a {@link BatchContainer} on the {@link KafkaTransport} with the scenario's threads, slice
 * size and pull batch size, the given ordering, commits at most once a second, every other option
 * (flow control included) at its default. For experiments, the system property
 * {@code bench.pull-threshold-for-queue} overrides flow control's count threshold.
 */
final class BatchConsumerContender implements Contender {

	private final KafkaTransport transport;

	private final Ordering ordering;

	BatchConsumerContender(KafkaTransport transport, Ordering ordering) {
		this.transport = transport;
		this.ordering = ordering;
	}

	@Override
	public String name() {
		return "batch-consumer " + this.ordering.name().toLowerCase();
	}

	/**
	 * The options ours runs with in a scenario.
	 * @param scenario the scenario
	 * @param group the group, also the container id
	 * @param ordering the ordering
	 * @return the options
	 */
	static ContainerOptions options(Scenario scenario, String group, Ordering ordering) {
		return ContainerOptions.builder(group)
			.topics(scenario.topic())
			.group(group)
			.ordering(ordering)
			.threadSize(scenario.threads())
			.consumerBatchSize(scenario.sliceSize())
			.pullBatchSize(scenario.pollRecords())
			.commitInterval(Duration.ofSeconds(1))
			.pullThresholdForQueue(Integer.getInteger("bench.pull-threshold-for-queue", 1000))
			.build();
	}

	@Override
	public Running start(Scenario scenario, String group, Tally tally) {
		ContainerOptions options = options(scenario, group, this.ordering);
		BatchContainer container = new BatchContainer(options, this.transport.createSource(options), (slice) -> {
			for (Message<byte[]> message : slice) {
				long index = Records.index(message.payload());
				scenario.work().perform(index);
				tally.processed(index);
			}
			return BatchResult.success();
		}, this.transport.deadLetterSink(options));
		container.start();
		return new Running() {

			@Override
			public long buffered() {
				return container.stats().backlog();
			}

			@Override
			public String note() {
				ContainerStats stats = container.stats();
				return String.format("flow control stopped fetching %,d times (count %,d, size %,d, span %,d); %,d commits",
						stats.flowControlCount() + stats.flowControlSize() + stats.flowControlSpan(),
						stats.flowControlCount(), stats.flowControlSize(), stats.flowControlSpan(),
						stats.commitsSucceeded());
			}

			@Override
			public void close() {
				container.stop();
			}

		};
	}

}

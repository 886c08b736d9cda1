package io.batchconsumer.benchmarks.rocketmq;

import java.time.Duration;

import io.batchconsumer.benchmarks.Records;
import io.batchconsumer.benchmarks.Scenario;
import io.batchconsumer.benchmarks.Tally;
import io.batchconsumer.benchmarks.kafka.Contender;
import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.ContainerSnapshot;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.rocketmq.RocketMqTransport;

/**
 * Ours on the RocketMQ transport, with the options of the Kafka scenarios (the scenario's threads,
 * slice size and pull batch size, at most 1024 for RocketMQ; commits at most once a second; flow
 * control at its defaults).
 *
 * <p>Threading: the container's threads run it; the runner thread starts and stops it.
 */
final class RocketMqBatchConsumerContender implements Contender {

	private final RocketMqTransport transport;

	private final Ordering ordering;

	RocketMqBatchConsumerContender(RocketMqTransport transport, Ordering ordering) {
		this.transport = transport;
		this.ordering = ordering;
	}

	@Override
	public String name() {
		return "batch-consumer rocketmq " + this.ordering.name().toLowerCase();
	}

	@Override
	public Running start(Scenario scenario, String group, Tally tally) {
		ContainerOptions options = ContainerOptions.builder(group)
			.topics(BenchRocketMq.topic(scenario))
			.group(group)
			.ordering(this.ordering)
			.threadSize(scenario.threads())
			.consumerBatchSize(scenario.sliceSize())
			.pullBatchSize(Math.min(scenario.pollRecords(), 1024))
			.commitInterval(Duration.ofSeconds(1))
			.build();
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
				ContainerSnapshot stats = container.stats();
				return String.format("flow control stopped fetching %,d times; %,d commits",
						stats.flowControlCount() + stats.flowControlSize() + stats.flowControlSpan(),
						stats.commitsSucceeded());
			}

			@Override
			public void close() {
				container.stop();
			}

		};
	}

}

package io.batchconsumer.benchmarks.kafka;

import java.time.Duration;
import java.util.List;

import io.confluent.parallelconsumer.ParallelConsumerOptions;
import io.confluent.parallelconsumer.ParallelConsumerOptions.CommitMode;
import io.confluent.parallelconsumer.ParallelConsumerOptions.ProcessingOrder;
import io.confluent.parallelconsumer.ParallelStreamProcessor;
import org.apache.kafka.clients.consumer.ConsumerRecord;

import io.batchconsumer.benchmarks.Records;
import io.batchconsumer.benchmarks.Scenario;
import io.batchconsumer.benchmarks.Tally;

/**
 * Confluent Parallel Consumer 0.5.3.3 with {@code maxConcurrency} = the scenario's threads, one
 * record per call, asynchronous periodic commits (its default mode), every other option at its
 * default.
 */
final class ParallelConsumerContender implements Contender {

	private final String bootstrap;

	private final ProcessingOrder order;

	ParallelConsumerContender(String bootstrap, ProcessingOrder order) {
		this.bootstrap = bootstrap;
		this.order = order;
	}

	@Override
	public String name() {
		return "Parallel Consumer " + this.order.name().toLowerCase();
	}

	@Override
	public Running start(Scenario scenario, String group, Tally tally) {
		ParallelConsumerOptions<String, byte[]> options = ParallelConsumerOptions.<String, byte[]>builder()
			.consumer(KafkaClients.consumer(this.bootstrap, group, scenario))
			.ordering(this.order)
			.maxConcurrency(scenario.threads())
			.commitMode(CommitMode.PERIODIC_CONSUMER_ASYNCHRONOUS)
			.build();
		ParallelStreamProcessor<String, byte[]> processor = ParallelStreamProcessor.createEosStreamProcessor(options);
		processor.subscribe(List.of(scenario.topic()));
		processor.poll((context) -> {
			for (ConsumerRecord<String, byte[]> record : context.getConsumerRecordsFlattened()) {
				long index = Records.index(record.value());
				scenario.work().perform(index);
				tally.processed(index);
			}
		});
		return () -> processor.closeDontDrainFirst(Duration.ofSeconds(10));
	}

}

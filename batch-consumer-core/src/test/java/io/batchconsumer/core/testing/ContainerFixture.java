package io.batchconsumer.core.testing;

import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.ContainerObserver;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.ContainerSnapshot;
import io.batchconsumer.core.PartitionSnapshot;
import io.batchconsumer.core.SliceListener;
import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.spi.DeadLetterSink;

/**
 * One container over an in-memory broker, with test-friendly defaults (1 ms back-off, short poll
 * timeout). Close it to stop the container.
 */
public final class ContainerFixture implements AutoCloseable {

	public static final String TOPIC = "orders";

	public static final String GROUP = "billing";

	public final InMemoryBroker broker = new InMemoryBroker();

	public final RecordingDeadLetterSink deadLetters = new RecordingDeadLetterSink();

	private InMemorySource source;

	private BatchContainer container;

	public ContainerFixture(int partitions, int messagesPerPartition) {
		this.broker.createTopic(TOPIC, partitions);
		for (int p = 0; p < partitions; p++) {
			for (int i = 0; i < messagesPerPartition; i++) {
				this.broker.append(TOPIC, p, "key-" + (i % 7), "payload-" + p + "-" + i);
			}
		}
	}

	public static ContainerOptions.Builder options() {
		return ContainerOptions.builder("test")
			.topics(TOPIC)
			.group(GROUP)
			.retryBackoff(Duration.ofMillis(1))
			.retryMaxBackoff(Duration.ofMillis(5))
			.pollTimeout(Duration.ofMillis(100))
			.shutdownTimeout(Duration.ofSeconds(10));
	}

	public BatchContainer start(UnaryOperator<ContainerOptions.Builder> customizer, SliceListener listener) {
		return start(customizer, listener, this.deadLetters, ContainerObserver.NONE);
	}

	/** Starts with a dead-letter sink and an observer of its own (to inject faults into them). */
	public BatchContainer start(UnaryOperator<ContainerOptions.Builder> customizer, SliceListener listener,
			DeadLetterSink sink, ContainerObserver observer) {
		ContainerOptions options = customizer.apply(options()).build();
		this.source = new InMemorySource(this.broker, GROUP, options.pullBatchSize(), List.of());
		this.container = BatchContainer.builder(options, this.source, listener, sink).observer(observer).build();
		this.container.start();
		return this.container;
	}

	public InMemorySource source() {
		return this.source;
	}

	public BatchContainer container() {
		return this.container;
	}

	public long committed(int partition) {
		return this.broker.committed(GROUP, new TopicPartition(TOPIC, partition));
	}

	public boolean isFullyCommitted() {
		return this.broker.isFullyCommitted(GROUP, TOPIC);
	}

	public PartitionSnapshot stats(int partition) {
		ContainerSnapshot stats = this.container.stats();
		return stats.partitions().stream()
				.filter((p) -> p.partition().partition() == partition).findFirst().orElse(null);
	}

	@Override
	public void close() {
		if (this.container != null && this.container.isRunning()) {
			this.container.abort();
		}
	}

}

package io.batchconsumer.spring.autoconfigure.metrics;

import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.BaseUnits;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.batchconsumer.core.ContainerSnapshot;
import io.batchconsumer.core.PartitionSnapshot;
import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.spring.listener.BatchListenerContainerRegistry;

import static io.batchconsumer.spring.autoconfigure.metrics.BatchConsumerMeters.LISTENER;
import static io.batchconsumer.spring.autoconfigure.metrics.BatchConsumerMeters.OUTCOME;
import static io.batchconsumer.spring.autoconfigure.metrics.BatchConsumerMeters.PARTITION;
import static io.batchconsumer.spring.autoconfigure.metrics.BatchConsumerMeters.REASON;
import static io.batchconsumer.spring.autoconfigure.metrics.BatchConsumerMeters.SHAPE;
import static io.batchconsumer.spring.autoconfigure.metrics.BatchConsumerMeters.TOPIC;

/**
 * Registers the meters of one listener and of its partitions for {@link BatchConsumerMeters}.
 *
 * <p>Threading: stateless apart from its collaborators; the registry is thread-safe, and
 * {@link BatchConsumerMeters} calls it under its own lock.
 */
final class ListenerMeters {

	private static final Logger logger = LoggerFactory.getLogger(ListenerMeters.class);

	private final MeterRegistry meterRegistry;

	private final Supplier<BatchListenerContainerRegistry> containers;

	private final boolean perPartition;

	ListenerMeters(MeterRegistry meterRegistry, Supplier<BatchListenerContainerRegistry> containers,
			boolean perPartition) {
		this.meterRegistry = meterRegistry;
		this.containers = containers;
		this.perPartition = perPartition;
	}

	ListenerStats bindListener(String id) {
		ListenerStats stats = new ListenerStats(id, this.containers);
		Tags tags = Tags.of(LISTENER, id);
		counter("batch.consumer.flow.control", "Times fetching a partition stopped because of flow control", stats,
				tags.and(REASON, "count"), ContainerSnapshot::flowControlCount);
		counter("batch.consumer.flow.control", "Times fetching a partition stopped because of flow control", stats,
				tags.and(REASON, "size"), ContainerSnapshot::flowControlSize);
		counter("batch.consumer.flow.control", "Times fetching a partition stopped because of flow control", stats,
				tags.and(REASON, "span"), ContainerSnapshot::flowControlSpan);
		String messages = "Messages by how their processing ended";
		counter("batch.consumer.messages", messages, stats, tags.and(OUTCOME, "success"),
				ContainerSnapshot::messagesSucceeded);
		counter("batch.consumer.messages", messages, stats, tags.and(OUTCOME, "retry"), ContainerSnapshot::messagesRetried);
		counter("batch.consumer.messages", messages, stats, tags.and(OUTCOME, "dead-letter"),
				ContainerSnapshot::messagesDeadLettered);
		counter("batch.consumer.messages", messages, stats, tags.and(OUTCOME, "skipped"),
				ContainerSnapshot::messagesSkipped);
		counter("batch.consumer.messages", messages, stats, tags.and(OUTCOME, "filtered"),
				ContainerSnapshot::messagesFiltered);
		counter("batch.consumer.messages", messages, stats, tags.and(OUTCOME, "retry-queue"),
				ContainerSnapshot::messagesQueuedForRetry);
		counter("batch.consumer.messages", messages, stats, tags.and(OUTCOME, "completed-before"),
				ContainerSnapshot::messagesCompletedBefore);
		counter("batch.consumer.commits", "Commits of positions by outcome", stats, tags.and(OUTCOME, "success"),
				ContainerSnapshot::commitsSucceeded);
		counter("batch.consumer.commits", "Commits of positions by outcome", stats, tags.and(OUTCOME, "failure"),
				ContainerSnapshot::commitsFailed);
		String batches = "Thread batches handed to workers: as formed (cut), or whole because the owner thread was the bound";
		counter("batch.consumer.thread.batches", batches, stats, tags.and(SHAPE, "cut"),
				(c) -> c.batchesOpened() - c.batchesWhole());
		counter("batch.consumer.thread.batches", batches, stats, tags.and(SHAPE, "whole"), ContainerSnapshot::batchesWhole);
		counter("batch.consumer.rate.limit.holds", "Times new batches started being held back by the rate limit",
				stats, tags, ContainerSnapshot::rateLimitHolds);
		counter("batch.consumer.key.rate.limit.holds", "Times a message key started being held back by the per-key "
				+ "rate limit", stats, tags, ContainerSnapshot::keyRateLimitHolds);
		gauge("batch.consumer.retry.queue.held.keys",
				"Keys whose message waits in the retry queue, holding their later messages back (ordering=key)", null,
				tags, (s) -> s.container(ContainerSnapshot::keysHeldForRetry), stats);
		gauge("batch.consumer.retry.queue.held.messages",
				"Messages waiting for a key whose message is in the retry queue (ordering=key)", null, tags,
				(s) -> s.container(ContainerSnapshot::messagesHeldForRetry), stats);
		gauge("batch.consumer.async.in.flight",
				"Calls of an asynchronous listener whose CompletionStage has not completed (they hold no thread)", null,
				tags, (s) -> s.container(ContainerSnapshot::asyncCallsInFlight), stats);
		String paused = "Assigned partitions that are not fetched";
		gauge("batch.consumer.paused.partitions", paused, null, tags.and(REASON, "user"),
				(s) -> s.container((c) -> c.partitions().stream().filter(PartitionSnapshot::pausedByUser).count()), stats);
		gauge("batch.consumer.paused.partitions", paused, null, tags.and(REASON, "flow-control"),
				(s) -> s.container((c) -> c.partitions().stream().filter(PartitionSnapshot::pausedByFlowControl).count()),
				stats);
		if (!this.perPartition) {
			bindSums(stats, tags);
		}
		logger.debug("Bound the meters of listener '{}'", id);
		return stats;
	}

	private void bindSums(ListenerStats stats, Tags tags) {
		gauge("batch.consumer.backlog", Descriptions.BACKLOG, null, tags, (s) -> s.container(ContainerSnapshot::backlog),
				stats);
		gauge("batch.consumer.backlog.bytes", Descriptions.BACKLOG_BYTES, BaseUnits.BYTES, tags,
				(s) -> s.container(ContainerSnapshot::backlogBytes), stats);
		gauge("batch.consumer.thread.batches.open", Descriptions.OPEN_BATCHES, null, tags,
				(s) -> s.container(ContainerSnapshot::openBatches), stats);
		gauge("batch.consumer.commit.lag", Descriptions.COMMIT_LAG, null, tags,
				(s) -> s.container(ContainerSnapshot::commitLag), stats);
	}

	void bindPartition(String id, ListenerStats stats, TopicPartition partition) {
		Tags tags = Tags.of(LISTENER, id, TOPIC, partition.topic(), PARTITION, Integer.toString(partition.partition()));
		gauge("batch.consumer.backlog", Descriptions.BACKLOG, null, tags,
				(s) -> s.partition(partition, PartitionSnapshot::backlog), stats);
		gauge("batch.consumer.backlog.bytes", Descriptions.BACKLOG_BYTES, BaseUnits.BYTES, tags,
				(s) -> s.partition(partition, PartitionSnapshot::backlogBytes), stats);
		gauge("batch.consumer.thread.batches.open", Descriptions.OPEN_BATCHES, null, tags,
				(s) -> s.partition(partition, PartitionSnapshot::openBatches), stats);
		gauge("batch.consumer.commit.lag", Descriptions.COMMIT_LAG, null, tags,
				(s) -> s.partition(partition, PartitionSnapshot::commitLag), stats);
	}

	private void counter(String name, String description, ListenerStats stats, Tags tags,
			ToLongFunction<ContainerSnapshot> counter) {
		FunctionCounter.builder(name, stats, (s) -> s.count(counter))
			.description(description)
			.tags(tags)
			.register(this.meterRegistry);
	}

	private void gauge(String name, String description, String baseUnit, Tags tags,
			ToDoubleFunction<ListenerStats> value, ListenerStats stats) {
		Gauge.builder(name, stats, value)
			.description(description)
			.baseUnit(baseUnit)
			.tags(tags)
			.strongReference(true)
			.register(this.meterRegistry);
	}

	/** Descriptions shared by the per-partition gauges and their per-listener sums. */
	private static final class Descriptions {

		static final String BACKLOG = "Messages fetched and not finished";

		static final String BACKLOG_BYTES = "Bytes of the messages fetched and not finished";

		static final String OPEN_BATCHES = "Thread batches not finished";

		static final String COMMIT_LAG = "Fetched position minus committed position";

		private Descriptions() {
		}

	}

}

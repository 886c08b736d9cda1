package io.batchconsumer.spring.autoconfigure.metrics;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;
import java.util.stream.Collectors;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.BaseUnits;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;

import io.batchconsumer.core.ContainerStats;
import io.batchconsumer.core.PartitionStats;
import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.spring.listener.BatchListenerContainerRegistry;

/**
 * Binds the {@code batch.consumer.*} meters of every listener to a {@link MeterRegistry}, and keeps
 * the per-partition ones in step with the assignment: every refresh adds the gauges of newly
 * assigned partitions and removes every per-partition meter (gauges and the slice timer) of a
 * partition that left the listener's snapshot — revoked, lost, or its container stopped.
 *
 * <p>With {@code perPartition} off, the four partition gauges are published once per listener as
 * sums instead; a meter name always has one set of tag keys.
 *
 * <p>Threading: {@link #refresh()} is {@code synchronized}; it runs on the
 * {@code batch-consumer-metrics} daemon thread every refresh interval while running, and may be
 * called from any thread. Gauges are read on scrape threads through {@link ListenerStats}.
 */
public final class BatchConsumerMeters implements SmartLifecycle {

	/** Tag: the listener id. */
	public static final String LISTENER = "listener";

	/** Tag: the topic of a partition. */
	public static final String TOPIC = "topic";

	/** Tag: the partition number. */
	public static final String PARTITION = "partition";

	/** Tag: how a message, commit or slice ended. */
	public static final String OUTCOME = "outcome";

	/** Tag: why fetching stopped, or why a partition is paused. */
	public static final String REASON = "reason";

	private static final Logger logger = LoggerFactory.getLogger(BatchConsumerMeters.class);

	private static final List<String> PER_PARTITION = List.of("batch.consumer.backlog", "batch.consumer.backlog.bytes",
			"batch.consumer.thread.batches.open", "batch.consumer.commit.lag", SliceTimers.NAME);

	private final MeterRegistry meterRegistry;

	private final BatchListenerContainerRegistry containers;

	private final boolean perPartition;

	private final Duration refreshInterval;

	/** Listeners whose meters are bound; read by the refresher, concurrent for {@link #isBound}. */
	private final Map<String, ListenerStats> listeners = new ConcurrentHashMap<>();

	/** The partitions whose gauges are bound, per listener; only {@link #refresh()} touches it. */
	private final Map<String, Set<TopicPartition>> boundPartitions = new HashMap<>();

	/** Set by {@link #start()} and {@link #stop()}, which the context calls on one thread. */
	private volatile ScheduledExecutorService refresher;

	/**
	 * Creates the binder.
	 * @param meterRegistry where the meters go
	 * @param containers the listener containers
	 * @param perPartition whether gauges are tagged by topic and partition
	 * @param refreshInterval how often partitions are looked at again
	 */
	public BatchConsumerMeters(MeterRegistry meterRegistry, BatchListenerContainerRegistry containers,
			boolean perPartition, Duration refreshInterval) {
		this.meterRegistry = meterRegistry;
		this.containers = containers;
		this.perPartition = perPartition;
		this.refreshInterval = refreshInterval;
	}

	/**
	 * Binds the meters of listeners seen for the first time, adds the gauges of newly assigned
	 * partitions and removes the per-partition meters of partitions no longer assigned.
	 */
	public synchronized void refresh() {
		for (String id : this.containers.getListenerIds()) {
			ListenerStats stats = this.listeners.computeIfAbsent(id, this::bindListener);
			if (this.perPartition) {
				ContainerStats snapshot = stats.latest();
				Set<TopicPartition> assigned = (snapshot != null) ? snapshot.partitions()
					.stream()
					.map(PartitionStats::partition)
					.collect(Collectors.toSet()) : Set.of();
				Set<TopicPartition> bound = this.boundPartitions.computeIfAbsent(id, (key) -> new HashSet<>());
				removeUnassigned(id, assigned);
				bound.retainAll(assigned);
				for (TopicPartition partition : assigned) {
					if (bound.add(partition)) {
						bindPartition(id, stats, partition);
					}
				}
			}
		}
	}

	/**
	 * Whether the meters of a listener are bound.
	 * @param listenerId the listener id
	 * @return {@code true} after a refresh saw it
	 */
	public boolean isBound(String listenerId) {
		return this.listeners.containsKey(listenerId);
	}

	private ListenerStats bindListener(String id) {
		ListenerStats stats = new ListenerStats(id, this.containers);
		Tags tags = Tags.of(LISTENER, id);
		counter("batch.consumer.flow.control", "Times fetching a partition stopped because of flow control", stats,
				tags.and(REASON, "count"), ContainerStats::flowControlCount);
		counter("batch.consumer.flow.control", "Times fetching a partition stopped because of flow control", stats,
				tags.and(REASON, "size"), ContainerStats::flowControlSize);
		counter("batch.consumer.flow.control", "Times fetching a partition stopped because of flow control", stats,
				tags.and(REASON, "span"), ContainerStats::flowControlSpan);
		String messages = "Messages by how their processing ended";
		counter("batch.consumer.messages", messages, stats, tags.and(OUTCOME, "success"),
				ContainerStats::messagesSucceeded);
		counter("batch.consumer.messages", messages, stats, tags.and(OUTCOME, "retry"), ContainerStats::messagesRetried);
		counter("batch.consumer.messages", messages, stats, tags.and(OUTCOME, "dead-letter"),
				ContainerStats::messagesDeadLettered);
		counter("batch.consumer.messages", messages, stats, tags.and(OUTCOME, "skipped"),
				ContainerStats::messagesSkipped);
		counter("batch.consumer.messages", messages, stats, tags.and(OUTCOME, "filtered"),
				ContainerStats::messagesFiltered);
		counter("batch.consumer.commits", "Commits of positions by outcome", stats, tags.and(OUTCOME, "success"),
				ContainerStats::commitsSucceeded);
		counter("batch.consumer.commits", "Commits of positions by outcome", stats, tags.and(OUTCOME, "failure"),
				ContainerStats::commitsFailed);
		String paused = "Assigned partitions that are not fetched";
		gauge("batch.consumer.paused.partitions", paused, null, tags.and(REASON, "user"),
				(s) -> s.container((c) -> c.partitions().stream().filter(PartitionStats::pausedByUser).count()), stats);
		gauge("batch.consumer.paused.partitions", paused, null, tags.and(REASON, "flow-control"),
				(s) -> s.container((c) -> c.partitions().stream().filter(PartitionStats::pausedByFlowControl).count()),
				stats);
		if (!this.perPartition) {
			bindSums(stats, tags);
		}
		logger.debug("Bound the meters of listener '{}'", id);
		return stats;
	}

	private void bindSums(ListenerStats stats, Tags tags) {
		gauge("batch.consumer.backlog", Descriptions.BACKLOG, null, tags, (s) -> s.container(ContainerStats::backlog),
				stats);
		gauge("batch.consumer.backlog.bytes", Descriptions.BACKLOG_BYTES, BaseUnits.BYTES, tags,
				(s) -> s.container(ContainerStats::backlogBytes), stats);
		gauge("batch.consumer.thread.batches.open", Descriptions.OPEN_BATCHES, null, tags,
				(s) -> s.container(ContainerStats::openBatches), stats);
		gauge("batch.consumer.commit.lag", Descriptions.COMMIT_LAG, null, tags,
				(s) -> s.container(ContainerStats::commitLag), stats);
	}

	private void bindPartition(String id, ListenerStats stats, TopicPartition partition) {
		Tags tags = Tags.of(LISTENER, id, TOPIC, partition.topic(), PARTITION, Integer.toString(partition.partition()));
		gauge("batch.consumer.backlog", Descriptions.BACKLOG, null, tags,
				(s) -> s.partition(partition, PartitionStats::backlog), stats);
		gauge("batch.consumer.backlog.bytes", Descriptions.BACKLOG_BYTES, BaseUnits.BYTES, tags,
				(s) -> s.partition(partition, PartitionStats::backlogBytes), stats);
		gauge("batch.consumer.thread.batches.open", Descriptions.OPEN_BATCHES, null, tags,
				(s) -> s.partition(partition, PartitionStats::openBatches), stats);
		gauge("batch.consumer.commit.lag", Descriptions.COMMIT_LAG, null, tags,
				(s) -> s.partition(partition, PartitionStats::commitLag), stats);
	}

	private void removeUnassigned(String id, Set<TopicPartition> assigned) {
		for (String name : PER_PARTITION) {
			for (Meter meter : this.meterRegistry.find(name).tag(LISTENER, id).meters()) {
				String topic = meter.getId().getTag(TOPIC);
				String partition = meter.getId().getTag(PARTITION);
				if (topic != null && partition != null
						&& !assigned.contains(new TopicPartition(topic, Integer.parseInt(partition)))) {
					this.meterRegistry.remove(meter);
					logger.debug("Removed {} of listener '{}', {}-{}", name, id, topic, partition);
				}
			}
		}
	}

	private void counter(String name, String description, ListenerStats stats, Tags tags,
			ToLongFunction<ContainerStats> counter) {
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

	@Override
	public void start() {
		ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor((runnable) -> {
			Thread thread = new Thread(runnable, "batch-consumer-metrics");
			thread.setDaemon(true);
			return thread;
		});
		long interval = this.refreshInterval.toMillis();
		executor.scheduleWithFixedDelay(this::refreshQuietly, 0, interval, TimeUnit.MILLISECONDS);
		this.refresher = executor;
	}

	@Override
	public void stop() {
		ScheduledExecutorService executor = this.refresher;
		this.refresher = null;
		if (executor != null) {
			executor.shutdownNow();
		}
	}

	@Override
	public boolean isRunning() {
		return this.refresher != null;
	}

	/**
	 * Starts after the listener containers, so the first refresh sees them running.
	 * @return the phase after {@link BatchListenerContainerRegistry#PHASE}
	 */
	@Override
	public int getPhase() {
		return BatchListenerContainerRegistry.PHASE + 1;
	}

	private void refreshQuietly() {
		try {
			refresh();
		}
		catch (RuntimeException ex) {
			logger.warn("Refreshing the batch-consumer meters failed; trying again in {}", this.refreshInterval, ex);
		}
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

package io.batchconsumer.spring.autoconfigure.metrics;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

import io.batchconsumer.core.ContainerObserver;
import io.batchconsumer.core.ContainerSnapshot;
import io.batchconsumer.core.PartitionSnapshot;
import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.spring.autoconfigure.ContainerObserverFactory;
import io.batchconsumer.spring.listener.BatchListenerContainerRegistry;

/**
 * Binds the {@code batch.consumer.*} meters of every listener to a {@link MeterRegistry}, and keeps
 * the per-partition ones in step with the assignment. As a {@link ContainerObserverFactory} it
 * binds a listener's meters when its container is created, and its observer binds the gauges of a
 * partition when the container is assigned it and removes every per-partition meter (gauges and
 * the slice timer) when the container gives it up — so every meter is there from the first
 * second. The refresh every {@code metrics.refresh-interval} is only a safety net for containers
 * created without this observer: it does the same from the published snapshots.
 *
 * <p>With {@code perPartition} off, the four partition gauges are published once per listener as
 * sums instead; a meter name always has one set of tag keys.
 *
 * <p>Threading: {@link #refresh()} and the binding methods are {@code synchronized}; the refresh runs
 * on the {@code batch-consumer-metrics} daemon thread, the assignment observers on each container's
 * owner thread. Gauges are read on scrape threads through {@link ListenerStats}.
 */
public final class BatchConsumerMeters implements SmartLifecycle, ContainerObserverFactory {

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

	/** Tag: whether a thread batch went out as formed ({@code cut}) or whole, not cut by key ({@code whole}). */
	public static final String SHAPE = "shape";

	private static final Logger logger = LoggerFactory.getLogger(BatchConsumerMeters.class);

	private static final List<String> PER_PARTITION = List.of("batch.consumer.backlog", "batch.consumer.backlog.bytes",
			"batch.consumer.thread.batches.open", "batch.consumer.commit.lag", SliceTimers.NAME);

	private final MeterRegistry meterRegistry;

	/** Looked up when first needed: the registry's containers are created with this factory's observers. */
	private final Supplier<BatchListenerContainerRegistry> containers;

	private final boolean perPartition;

	private final Duration refreshInterval;

	private final ListenerMeters binder;

	/** Listeners whose meters are bound; read by the refresher, concurrent for {@link #isBound}. */
	private final Map<String, ListenerStats> listeners = new ConcurrentHashMap<>();

	/** The partitions whose gauges are bound, per listener; guarded by {@code this}. */
	private final Map<String, Set<TopicPartition>> boundPartitions = new HashMap<>();

	/** Listeners whose containers tell this binder of their assignment; guarded by {@code this}. */
	private final Set<String> observed = new HashSet<>();

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
		this(meterRegistry, () -> containers, perPartition, refreshInterval);
	}

	/**
	 * Creates the binder with a registry that is looked up when first needed.
	 * @param meterRegistry where the meters go
	 * @param containers gives the listener containers
	 * @param perPartition whether gauges are tagged by topic and partition
	 * @param refreshInterval how often partitions are looked at again
	 */
	public BatchConsumerMeters(MeterRegistry meterRegistry, Supplier<BatchListenerContainerRegistry> containers,
			boolean perPartition, Duration refreshInterval) {
		this.meterRegistry = meterRegistry;
		this.containers = containers;
		this.perPartition = perPartition;
		this.refreshInterval = refreshInterval;
		this.binder = new ListenerMeters(meterRegistry, containers, perPartition);
	}

	/**
	 * Binds the meters of listeners seen for the first time, adds the gauges of newly assigned
	 * partitions and removes the per-partition meters of partitions no longer assigned.
	 */
	public synchronized void refresh() {
		for (String id : this.containers.get().getListenerIds()) {
			ListenerStats stats = this.listeners.computeIfAbsent(id, this.binder::bindListener);
			// A snapshot is up to 100 ms old: for an observed listener it would undo the latest events.
			if (this.perPartition && !this.observed.contains(id)) {
				ContainerSnapshot snapshot = stats.latest();
				Set<TopicPartition> assigned = (snapshot != null) ? snapshot.partitions()
					.stream()
					.map(PartitionSnapshot::partition)
					.collect(Collectors.toSet()) : Set.of();
				Set<TopicPartition> bound = this.boundPartitions.computeIfAbsent(id, (key) -> new HashSet<>());
				removeUnassigned(id, assigned);
				bound.retainAll(assigned);
				for (TopicPartition partition : assigned) {
					if (bound.add(partition)) {
						this.binder.bindPartition(id, stats, partition);
					}
				}
			}
		}
	}

	/**
	 * Binds the meters of a listener whose container is being created, and gives the container an
	 * observer that binds and removes the per-partition meters as partitions come and go.
	 * @param listenerId the listener id
	 * @return the assignment observer
	 */
	@Override
	public synchronized ContainerObserver create(String listenerId) {
		this.listeners.computeIfAbsent(listenerId, this.binder::bindListener);
		this.observed.add(listenerId);
		return new ContainerObserver() {

			@Override
			public void sliceProcessed(TopicPartition partition, int messages, long nanos, int failed) {
			}

			@Override
			public void partitionsAssigned(Collection<TopicPartition> partitions) {
				assigned(listenerId, partitions);
			}

			@Override
			public void partitionsRevoked(Collection<TopicPartition> partitions) {
				revoked(listenerId, partitions);
			}

		};
	}

	private synchronized void assigned(String id, Collection<TopicPartition> partitions) {
		ListenerStats stats = this.listeners.computeIfAbsent(id, this.binder::bindListener);
		if (this.perPartition) {
			Set<TopicPartition> bound = this.boundPartitions.computeIfAbsent(id, (key) -> new HashSet<>());
			for (TopicPartition partition : partitions) {
				if (bound.add(partition)) {
					this.binder.bindPartition(id, stats, partition);
				}
			}
		}
	}

	private synchronized void revoked(String id, Collection<TopicPartition> partitions) {
		if (this.perPartition) {
			Set<TopicPartition> bound = this.boundPartitions.computeIfAbsent(id, (key) -> new HashSet<>());
			partitions.forEach(bound::remove);
			removeUnassigned(id, bound);
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

}

package io.batchconsumer.spring.autoconfigure.metrics;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.ContainerSnapshot;
import io.batchconsumer.core.LifecyclePhase;
import io.batchconsumer.core.PartitionSnapshot;
import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.spring.listener.BatchListenerContainerRegistry;

/**
 * What the meters of one listener read: the latest {@link ContainerSnapshot} snapshot of its current
 * container, indexed by partition and kept for {@link #MAX_AGE_NANOS} so that one scrape of many
 * per-partition gauges takes one snapshot, not one per gauge.
 *
 * <p>Counters stay monotonic across containers: when a stopped listener is started again with a
 * fresh container (whose counters start at zero), the final counts of the old one are carried
 * over.
 *
 * <p>Threading: read by scrape threads and the refresher concurrently; every method is
 * {@code synchronized} on this small object, which holds nothing but immutable snapshots.
 */
final class ListenerStats {

	/** The owner thread publishes snapshots about every 100 ms; reading more often shows nothing new. */
	static final long MAX_AGE_NANOS = 100_000_000L;

	private final String listenerId;

	private final Supplier<BatchListenerContainerRegistry> registry;

	private BatchContainer container;

	private ContainerSnapshot current;

	/** Counters of the containers this listener had before {@link #container}. */
	private ContainerSnapshot retired;

	private Map<TopicPartition, PartitionSnapshot> partitions = Map.of();

	private long readNanos;

	private boolean read;

	ListenerStats(String listenerId, Supplier<BatchListenerContainerRegistry> registry) {
		this.listenerId = listenerId;
		this.registry = registry;
		this.retired = zero(listenerId);
	}

	/**
	 * The snapshot the container published last, read now rather than from the cache.
	 * @return the snapshot, or {@code null} when the listener has no container
	 */
	synchronized ContainerSnapshot latest() {
		read(System.nanoTime());
		return this.current;
	}

	/**
	 * A value of one partition.
	 * @param partition the partition
	 * @param value what to read of it
	 * @return the value, or {@link Double#NaN} while the partition is not assigned
	 */
	synchronized double partition(TopicPartition partition, ToDoubleFunction<PartitionSnapshot> value) {
		refreshIfStale();
		PartitionSnapshot stats = this.partitions.get(partition);
		return (stats != null) ? value.applyAsDouble(stats) : Double.NaN;
	}

	/**
	 * A value of the whole container.
	 * @param value what to read of it
	 * @return the value, or {@link Double#NaN} when the listener has no container
	 */
	synchronized double container(ToDoubleFunction<ContainerSnapshot> value) {
		refreshIfStale();
		return (this.current != null) ? value.applyAsDouble(this.current) : Double.NaN;
	}

	/**
	 * A counter over every container the listener had.
	 * @param counter the counter of a snapshot
	 * @return the count, never decreasing
	 */
	synchronized double count(ToLongFunction<ContainerSnapshot> counter) {
		refreshIfStale();
		long now = (this.current != null) ? counter.applyAsLong(this.current) : 0;
		return counter.applyAsLong(this.retired) + now;
	}

	private void refreshIfStale() {
		long now = System.nanoTime();
		if (!this.read || now - this.readNanos >= MAX_AGE_NANOS) {
			read(now);
		}
	}

	private void read(long now) {
		BatchContainer latest = this.registry.get().getContainer(this.listenerId);
		if (latest != this.container && this.container != null) {
			this.retired = plus(this.retired, this.container.stats());
		}
		this.container = latest;
		this.current = (latest != null) ? latest.stats() : null;
		Map<TopicPartition, PartitionSnapshot> byPartition = new HashMap<>();
		if (this.current != null) {
			this.current.partitions().forEach((stats) -> byPartition.put(stats.partition(), stats));
		}
		this.partitions = byPartition;
		this.readNanos = now;
		this.read = true;
	}

	private static ContainerSnapshot zero(String id) {
		return new ContainerSnapshot(id, LifecyclePhase.CREATED, List.of(), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, null,
				0, null, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
	}

	private static ContainerSnapshot plus(ContainerSnapshot a, ContainerSnapshot b) {
		return new ContainerSnapshot(a.id(), a.state(), List.of(), 0, 0, a.flowControlCount() + b.flowControlCount(),
				a.flowControlSize() + b.flowControlSize(), a.flowControlSpan() + b.flowControlSpan(),
				a.messagesSucceeded() + b.messagesSucceeded(), a.messagesRetried() + b.messagesRetried(),
				a.messagesDeadLettered() + b.messagesDeadLettered(), a.messagesSkipped() + b.messagesSkipped(),
				a.commitsSucceeded() + b.commitsSucceeded(), a.commitsFailed() + b.commitsFailed(), 0, null, 0, null,
				a.messagesFiltered() + b.messagesFiltered(), a.messagesQueuedForRetry() + b.messagesQueuedForRetry(),
				a.batchesOpened() + b.batchesOpened(), a.batchesWhole() + b.batchesWhole(),
				a.messagesCompletedBefore() + b.messagesCompletedBefore(), a.rateLimitHolds() + b.rateLimitHolds(),
				a.keysHeldForRetry() + b.keysHeldForRetry(), a.messagesHeldForRetry() + b.messagesHeldForRetry(),
				a.keyRateLimitHolds() + b.keyRateLimitHolds(),
				a.asyncCallsInFlight() + b.asyncCallsInFlight());
	}

}

package io.batchconsumer.spring.autoconfigure.metrics;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;

import io.batchconsumer.core.ContainerObserver;
import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.spring.autoconfigure.ContainerObserverFactory;

/**
 * Records {@code batch.consumer.slice.duration}: how long the listener took for one delivery of a
 * slice, tagged {@code listener}, {@code outcome} ({@code success}, or {@code failure} when any
 * message of the slice failed) and, per partition, {@code topic} and {@code partition}.
 *
 * <p>The timer is looked up in the registry on every slice rather than kept, so a timer that
 * {@link BatchConsumerMeters} removed for a revoked partition comes back if that partition does.
 *
 * <p>Threading: the observers run on worker threads concurrently; the registry is thread-safe and
 * the tag cache is a concurrent map of immutable {@link Tags}.
 */
public final class SliceTimers implements ContainerObserverFactory {

	/** The timer's name. */
	public static final String NAME = "batch.consumer.slice.duration";

	private final MeterRegistry registry;

	private final boolean perPartition;

	/**
	 * Creates the factory.
	 * @param registry where the timers go
	 * @param perPartition whether to tag by topic and partition
	 */
	public SliceTimers(MeterRegistry registry, boolean perPartition) {
		this.registry = registry;
		this.perPartition = perPartition;
	}

	/**
	 * The observer of one listener's container.
	 * @param listenerId the listener id
	 * @return an observer that records the timer
	 */
	@Override
	public ContainerObserver create(String listenerId) {
		Tags listener = Tags.of(BatchConsumerMeters.LISTENER, listenerId);
		Map<TopicPartition, Tags> byPartition = new ConcurrentHashMap<>();
		return (partition, messages, nanos, failed) -> {
			Tags tags = this.perPartition ? byPartition.computeIfAbsent(partition,
					(key) -> listener.and(BatchConsumerMeters.TOPIC, key.topic(), BatchConsumerMeters.PARTITION,
							Integer.toString(key.partition())))
					: listener;
			Timer.builder(NAME)
				.description("Time the listener took for one delivery of a slice")
				.tags(tags)
				.tag(BatchConsumerMeters.OUTCOME, (failed > 0) ? "failure" : "success")
				.register(this.registry)
				.record(nanos, TimeUnit.NANOSECONDS);
		};
	}

}

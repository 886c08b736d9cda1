package io.batchconsumer.spring.autoconfigure.metrics;

import java.util.Collection;
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
 * <p>Both outcomes' timers are registered when the container is created (per listener) or assigned
 * a partition (per partition), so they are there before the first slice. The timer is looked up
 * in the registry on every slice rather than kept, so a timer that {@link BatchConsumerMeters}
 * removed for a revoked partition comes back if that partition does.
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
		if (!this.perPartition) {
			timer(listener, "success");
			timer(listener, "failure");
		}
		return new ContainerObserver() {

			@Override
			public void sliceProcessed(TopicPartition partition, int messages, long nanos, int failed) {
				Tags tags = SliceTimers.this.perPartition ? tags(byPartition, listener, partition) : listener;
				timer(tags, (failed > 0) ? "failure" : "success").record(nanos, TimeUnit.NANOSECONDS);
			}

			@Override
			public void partitionsAssigned(Collection<TopicPartition> partitions) {
				if (SliceTimers.this.perPartition) {
					for (TopicPartition partition : partitions) {
						timer(tags(byPartition, listener, partition), "success");
						timer(tags(byPartition, listener, partition), "failure");
					}
				}
			}

		};
	}

	private static Tags tags(Map<TopicPartition, Tags> byPartition, Tags listener, TopicPartition partition) {
		return byPartition.computeIfAbsent(partition, (key) -> listener.and(BatchConsumerMeters.TOPIC, key.topic(),
				BatchConsumerMeters.PARTITION, Integer.toString(key.partition())));
	}

	private Timer timer(Tags tags, String outcome) {
		return Timer.builder(NAME)
			.description("Time the listener took for one delivery of a slice")
			.tags(tags)
			.tag(BatchConsumerMeters.OUTCOME, outcome)
			.register(this.registry);
	}

}
